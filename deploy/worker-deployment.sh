#!/bin/sh
# Makes a first install's worker build current: until a build of the Worker Deployment is current, no workflow runs.
# Waits for the build's workers to poll, then sets it current only if no build is (a rolling deploy ramps and sets its
# build by hand: docs/operations.md, "Deploying a release"). docker compose runs it in temporalio/admin-tools beside the
# worker; the production-shape suite runs it with the same CLI. Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
# WORKER_DEPLOYMENT_NAME (default accounts-payable) and WORKER_BUILD_ID; TEMPORAL_CLI names the CLI when it is not on
# PATH.
set -eu
cli="${TEMPORAL_CLI:-temporal}"
namespace="${TEMPORAL_NAMESPACE:-default}"
name="${WORKER_DEPLOYMENT_NAME:-accounts-payable}"
build="${WORKER_BUILD_ID:?WORKER_BUILD_ID names the build to make current}"

tries=0
until described=$("$cli" worker deployment describe --namespace "$namespace" --name "$name" -o json 2>&1) &&
  printf '%s' "$described" | grep -q "\"BuildID\": \"$build\""; do
  tries=$((tries + 1))
  [ "$tries" -lt 240 ] || { printf 'no worker of build %s of %s has polled:\n%s\n' "$build" "$name" "$described" >&2; exit 1; }
  sleep 0.5
done
routing=$("$cli" worker deployment describe --namespace "$namespace" --name "$name" -o json)
if printf '%s' "$routing" | grep -q '"currentVersionBuildID": ""'; then
  "$cli" worker deployment set-current-version --namespace "$namespace" --deployment-name "$name" --build-id "$build" --yes
elif printf '%s' "$routing" | grep -q "\"currentVersionBuildID\": \"$build\""; then
  echo "$build is the current build of $name"
else
  echo "$name has another current build: ramp $build and set it current as docs/operations.md says"
fi
