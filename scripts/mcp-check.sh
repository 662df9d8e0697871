#!/usr/bin/env bash
# CI (issue 35): an MCP client we did not write against the built service. Starts `npm start`'s
# JavaScript on a fresh data folder (the demo clinic), lists the voice agent key's tools with
# @modelcontextprotocol/inspector-cli over streamable HTTP, calls one, and stops the service.
# @modelcontextprotocol/conformance is not run: it needs Node 22 (fs.globSync) and its server
# runner sends no Authorization header, so no scenario could reach an authenticated /mcp.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DATA=$(mktemp -d)
PORT=${MCP_CHECK_PORT:-38917}
LOG="$DATA/service.log"
DATA_DIR="$DATA/data" PORT=$PORT HOST=127.0.0.1 LOG_LEVEL=warn node dist/src/main.js >"$LOG" 2>&1 &
PID=$!
cleanup() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$DATA"; }
trap cleanup EXIT
for _ in $(seq 1 120); do
  grep -q 'voice agent key' "$LOG" && curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || { cat "$LOG"; exit 1; }
  sleep 0.5
done
KEY=$(grep -o 'voice agent key: *dcm_[A-Za-z0-9_-]*' "$LOG" | awk '{print $4}')
# The inspector reads its own package.json relative to the working directory: run it from its build folder.
cd "$ROOT/node_modules/@modelcontextprotocol/inspector-cli/build"
inspect() { node index.js "http://127.0.0.1:$PORT/mcp" --transport http --header "Authorization: Bearer $KEY" "$@"; }
TOOLS=$(inspect --method tools/list | node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(r.tools.map((t) => t.name).join(" "))')
echo "MCP tools of the demo voice agent key: $TOOLS"
for tool in get_caller_context search_patients list_services find_slots hold_slot book_appointment log_call hand_off; do
  [[ " $TOOLS " == *" $tool "* ]] || { echo "missing tool: $tool"; exit 1; }
done
inspect --method tools/call --tool-name list_services | node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")); if (r.isError || !r.structuredContent.data.length) { console.error(r); process.exit(1); } console.log(`list_services: ${r.structuredContent.data.length} services`)'
echo "mcp-check: 1 passed, 0 failed"
