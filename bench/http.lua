-- wrk's script for the HTTP bench: POST one MCP request per call, each with its own id
-- (and progress token), so calls that share a legacy session never share an id.
--
-- Read from the environment (set by `http-bench`):
--   WRK_TOOL      the tool to call (`echo`, or `echo_progress` with a progress token)
--   WRK_AUTH      the Authorization header value, if the server wants one
--   WRK_SESSION   the Mcp-Session-Id, for the legacy-session case
-- At the end it prints one line `wrk requests=… p50_us=… p99_us=… …` for `http-bench`.

local tool = os.getenv("WRK_TOOL") or "echo"
local auth = os.getenv("WRK_AUTH") or ""
local session = os.getenv("WRK_SESSION") or ""
local text = "hello from the toolwire bench"

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
if auth ~= "" then wrk.headers["Authorization"] = auth end
if session ~= "" then wrk.headers["Mcp-Session-Id"] = session end

local counter = 0

function request()
  counter = counter + 1
  local meta = ""
  if tool == "echo_progress" then
    meta = string.format(',"_meta":{"progressToken":%d}', counter)
  end
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":{"text":"%s"}%s}}',
    counter, tool, text, meta)
  return wrk.format(nil, nil, nil, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "wrk requests=%d duration_us=%d errors_connect=%d errors_read=%d errors_write=%d errors_status=%d errors_timeout=%d p50_us=%d p99_us=%d max_us=%d mean_us=%.1f\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, latency.mean))
end
