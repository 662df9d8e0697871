#!/usr/bin/env bash
# CI: an MCP client we did not write against the built service. Starts `npm start`'s
# JavaScript on a fresh data folder (the demo clinic), lists the voice agent key's tools with
# @modelcontextprotocol/inspector-cli over streamable HTTP, calls one, then runs the scenarios of
# @modelcontextprotocol/conformance that apply to a server without the conformance fixtures
# (CONFORMANCE_SCENARIOS below), and stops the service.
# The conformance runner needs Node 22 or later (fs.globSync): CONFORMANCE_NODE names that node
# (.ci/run passes the newest LTS it installs); without it, the machine's node must be new enough.
# Its runner sends no Authorization header, so it talks to /mcp through scripts/bearer-proxy.mjs,
# a loopback proxy that adds the demo voice key and passes Host and Origin through unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DATA=$(mktemp -d)
PORT=${MCP_CHECK_PORT:-38917}
LOG="$DATA/service.log"
DATA_DIR="$DATA/data" PORT=$PORT HOST=127.0.0.1 LOG_LEVEL=warn node dist/src/main.js >"$LOG" 2>&1 &
PID=$!
PROXY_PID=
cleanup() {
  [[ -n "$PROXY_PID" ]] && kill "$PROXY_PID" 2>/dev/null || true
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  rm -rf "$DATA"
}
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

# The conformance scenarios that need no fixture tools, resources or prompts of the runner's own:
# the others (tools-call-*, resources-*, prompts-*, logging, completion, elicitation, sampling,
# SSE streams) name tools and capabilities a clinic's server does not have.
CONFORMANCE_SCENARIOS="server-initialize ping tools-list dns-rebinding-protection"
CONFORMANCE_NODE=${CONFORMANCE_NODE:-node}
if [[ "$("$CONFORMANCE_NODE" -p 'process.versions.node.split(".")[0]')" -lt 22 ]]; then
  echo "the conformance runner needs Node 22 or later: set CONFORMANCE_NODE (got $("$CONFORMANCE_NODE" --version))"
  exit 1
fi
PROXY_PORT=${MCP_CHECK_PROXY_PORT:-38918}
node "$ROOT/scripts/bearer-proxy.mjs" "$PROXY_PORT" "http://127.0.0.1:$PORT" "$KEY" >"$DATA/proxy.log" 2>&1 &
PROXY_PID=$!
for _ in $(seq 1 40); do grep -q 'bearer-proxy:' "$DATA/proxy.log" && break; sleep 0.25; done
cd "$DATA"
for scenario in $CONFORMANCE_SCENARIOS; do
  "$CONFORMANCE_NODE" "$ROOT/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
    --url "http://127.0.0.1:$PROXY_PORT/mcp" --scenario "$scenario" -o "$DATA/conformance" >"$DATA/conformance.log" 2>&1 ||
    { cat "$DATA/conformance.log"; echo "conformance scenario failed: $scenario"; exit 1; }
  grep -q -E '^Passed: .*, 0 failed' "$DATA/conformance.log" || { cat "$DATA/conformance.log"; echo "conformance scenario failed: $scenario"; exit 1; }
  grep -E '^Passed:' "$DATA/conformance.log" | sed "s/^/conformance $scenario: /"
done
echo "mcp-check: inspector 1 passed; conformance $(wc -w <<<"$CONFORMANCE_SCENARIOS") scenarios passed"
