# One image for the api, the worker and the one-shot migration: the command picks the role.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# npm ci links the workspaces the lockfile names (the typed client), so their manifests come first.
COPY clients/typescript/package.json clients/typescript/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY . .
# Mount points owned by the user the processes run as, so that fresh volumes are writable.
RUN mkdir -p /var/lib/accounts-payable/files /var/mail/accounts-payable && chown -R node:node /var/lib/accounts-payable /var/mail/accounts-payable
USER node
EXPOSE 3000
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=16", "api/main.ts"]
