//! The raw floor: a hand-written line-in, line-out MCP echo server with no SDK and no JSON
//! library (std only), single-threaded.
//!
//! It shows what the transport itself costs: read a line, find the few fields it needs with
//! the top-level scanner in `toolwire_bench::json`, write a line, and flush only when no
//! more input is already buffered (write coalescing). It answers `initialize` (echoing the
//! client's protocol version), `ping`, `tools/list` (one `echo` tool, or `--tools 50`
//! `tool_0..tool_49`) and `tools/call` (the `text` argument's JSON string token is copied
//! back verbatim, which is a correct echo of an already-escaped string). Notifications get
//! no answer; any other request gets -32601.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use toolwire_bench::json;

fn main() -> io::Result<()> {
    let many = std::env::args().skip(1).collect::<Vec<_>>() == ["--tools", "50"];
    let tools_list = tools_list(many);
    let stdin = io::stdin().lock();
    let mut input = BufReader::with_capacity(64 * 1024, stdin);
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        answer(&line, &tools_list, &mut out)?;
        if input.buffer().is_empty() {
            out.flush()?;
        }
    }
    out.flush()
}

fn answer(line: &[u8], tools_list: &str, out: &mut impl Write) -> io::Result<()> {
    let (Some(id), Some(method)) = (json::top_level(line, "id"), json::top_level(line, "method")) else {
        // A notification (or a stray response): nothing to say.
        return Ok(());
    };
    out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
    out.write_all(id)?;
    match method {
        b"\"tools/call\"" => {
            let text = json::path(line, &["params", "arguments", "text"]).unwrap_or(b"\"\"");
            out.write_all(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":")?;
            out.write_all(text)?;
            out.write_all(b"}],\"isError\":false}}\n")
        }
        b"\"initialize\"" => {
            let version = json::path(line, &["params", "protocolVersion"]).unwrap_or(b"\"2025-06-18\"");
            out.write_all(b",\"result\":{\"protocolVersion\":")?;
            out.write_all(version)?;
            out.write_all(b",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"floor-echo\",\"version\":\"0.1.0\"}}}\n")
        }
        b"\"tools/list\"" => {
            out.write_all(b",\"result\":")?;
            out.write_all(tools_list.as_bytes())?;
            out.write_all(b"}\n")
        }
        b"\"ping\"" => out.write_all(b",\"result\":{}}\n"),
        _ => out.write_all(b",\"error\":{\"code\":-32601,\"message\":\"method not found\"}}\n"),
    }
}

fn tools_list(many: bool) -> String {
    let tool = |name: &str| {
        format!(
            r#"{{"name":"{name}","description":"Echo the text back.","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string"}}}},"required":["text"],"additionalProperties":false}}}}"#
        )
    };
    let tools: Vec<String> =
        if many { (0..50).map(|i| tool(&format!("tool_{i}"))).collect() } else { vec![tool("echo")] };
    format!(r#"{{"tools":[{}]}}"#, tools.join(","))
}
