# Image for docker-compose.yml (documentation; CI does not build it).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev
EXPOSE 8443 8444
CMD ["node", "dist/apps/api/src/main.js"]
