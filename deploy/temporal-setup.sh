#!/bin/sh
# Registers what the product needs in its Temporal namespace: the namespace itself, and the search attributes operators
# find flows by in the Temporal UI. docker compose runs it in temporalio/admin-tools; the production-shape suite runs it
# with the same CLI. Idempotent. Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE; TEMPORAL_CLI names the CLI when it is not
# on PATH.
set -eu
cli="${TEMPORAL_CLI:-temporal}"
namespace="${TEMPORAL_NAMESPACE:-default}"

# The server may still be starting (compose starts this beside it).
tries=0
until "$cli" operator cluster health 2>/dev/null | grep -q SERVING; do
  tries=$((tries + 1))
  [ "$tries" -lt 240 ] || { echo "the Temporal server at ${TEMPORAL_ADDRESS:-127.0.0.1:7233} is not serving" >&2; exit 1; }
  sleep 0.5
done

"$cli" operator namespace describe --namespace "$namespace" >/dev/null 2>&1 || "$cli" operator namespace create --namespace "$namespace" --retention 30d
# A new namespace reaches every frontend within the server's registry refresh (about ten seconds).
tries=0
until attributes=$("$cli" operator search-attribute list --namespace "$namespace" 2>/dev/null); do
  tries=$((tries + 1))
  [ "$tries" -lt 120 ] || { echo "namespace $namespace is still not served" >&2; exit 1; }
  sleep 0.5
done
for attribute in CompanyReference:Keyword DocumentReference:Keyword FiscalReference:Keyword DocumentNumber:Keyword ApprovalStatus:Keyword WaitingSince:Datetime; do
  name="${attribute%%:*}"
  printf '%s\n' "$attributes" | grep -qw "$name" || "$cli" operator search-attribute create --namespace "$namespace" --name "$name" --type "${attribute#*:}"
done
"$cli" operator search-attribute list --namespace "$namespace"
