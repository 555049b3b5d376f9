//! Rate limits per principal: on HTTP a request over the limit is 429 with `Retry-After`;
//! on stdio (a real child process, `tests/src/bin/limited-server.rs`, and a session fed
//! directly), a JSON-RPC error with the delay in `data`. Proven under concurrent load on real
//! sockets: every client gets exactly its share, and every request is answered.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolwire::http::{Auth, HttpConfig, Refusal, ResourceServer, mcp_router};
use toolwire::principal::Principal;
use toolwire::server::RateLimit;
use toolwire::{Server, ServerOptions, tool, tools};
use toolwire_tests::example_server::StdioChild;
use toolwire_tests::http::{mcp_headers, request};

/// Echo the text back.
#[tool(read_only)]
fn echo(text: String) -> String {
    text
}

const CALL: &str =
    r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;

#[tokio::test(flavor = "multi_thread")]
async fn n_clients_over_the_limit_each_get_exactly_their_share_and_every_request_is_answered() {
    const CLIENTS: usize = 8;
    const EACH: usize = 12;
    const SHARE: usize = 5;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    // Token `user-N` is principal `user-N`.
    let auth = Auth::resource_server(ResourceServer::new(format!("http://{addr}/mcp"), |t: &str| {
        t.starts_with("user-").then(|| Principal::new(t)).ok_or(Refusal::InvalidToken("unknown".into()))
    }));
    let server = Server::builder(ServerOptions::new("limited", "1.0.0"))
        .tools(tools![echo].unwrap())
        .rate_limit(RateLimit::per_hour(NonZeroU32::new(SHARE as u32).unwrap()))
        .exposure(toolwire::server::Exposure::untrusted_callers())
        .build();
    let app = mcp_router(server, HttpConfig::new(auth).stateless(true));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        for _ in 0..EACH {
            let mut h = mcp_headers(addr);
            h.push(("MCP-Protocol-Version".into(), "2025-11-25".into()));
            h.push(("Authorization".into(), format!("Bearer user-{c}")));
            tasks.push(tokio::task::spawn_blocking(move || (c, request(addr, "POST", "/mcp", &h, CALL))));
        }
    }
    let mut ok = [0usize; CLIENTS];
    let mut limited = [0usize; CLIENTS];
    // Generous: 96 small requests on loopback; a hang fails here instead of blocking forever.
    let all =
        tokio::time::timeout(Duration::from_secs(120), futures_join(tasks)).await.expect("no request hangs");
    for (c, r) in all {
        match r.status {
            200 => {
                assert_eq!(r.json()["result"]["content"][0]["text"], "hi");
                ok[c] += 1;
            }
            429 => {
                let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
                // One cell comes back every 720 s (5 an hour).
                assert!((1..=720).contains(&retry), "Retry-After: {retry}");
                let body = r.json();
                assert_eq!((body["id"].as_i64(), body["error"]["code"].as_i64()), (Some(7), Some(-32029)));
                let message = body["error"]["message"].as_str().unwrap();
                let prefix = format!("rate limited: 'user-{c}' is over its request limit; retry in ");
                assert!(message.starts_with(&prefix) && message.ends_with(" ms"), "{message}");
                limited[c] += 1;
            }
            other => panic!("unexpected {other}: {}", r.body),
        }
    }
    assert_eq!(ok, [SHARE; CLIENTS], "each client got exactly its share");
    assert_eq!(limited, [EACH - SHARE; CLIENTS]);
}

async fn futures_join<T: Send + 'static>(tasks: Vec<tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut out = Vec::with_capacity(tasks.len());
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_fed_directly_answers_a_json_rpc_error_with_the_delay_in_data() {
    let server = Server::builder(ServerOptions::new("limited", "1.0.0"))
        .tools(tools![echo].unwrap())
        .rate_limit(RateLimit::per_hour(NonZeroU32::new(2).unwrap()))
        .build();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink: Arc<dyn toolwire::server::Sink> = {
        let seen = seen.clone();
        Arc::new(move |m: toolwire::protocol::Outbound| seen.lock().unwrap().push(m.into_string()))
    };
    let session = server.session();
    for id in 1..=3 {
        session.handle(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#), &sink);
        // Notifications are never limited.
        session.handle(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &sink);
    }
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(seen[0], r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert_eq!(seen[1], r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    let refused: serde_json::Value = serde_json::from_str(&seen[2]).unwrap();
    assert_eq!(refused["error"]["code"], -32029);
    let ms = refused["error"]["data"]["retryAfterMs"].as_u64().unwrap();
    assert!(ms > 1_700_000 && ms <= 1_800_000, "{ms}");
    assert_eq!(
        refused["error"]["message"],
        format!("rate limited: 'host' is over its request limit; retry in {ms} ms")
    );
}

#[test]
fn a_stdio_child_over_its_limit_answers_each_request_with_the_delay_in_data() {
    // 3 an hour: `initialize` and two calls take the three cells; then one comes back every
    // 1200 s.
    let mut c = StdioChild::spawn(&mut std::process::Command::new(env!("CARGO_BIN_EXE_limited-server")));
    assert!(c.initialize("2025-11-25").contains(r#""serverInfo":{"name":"limited-server""#));
    let call = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"call {id}"}}}}}}"#
        )
    };
    // Six requests in one write: every one is answered, two with the result.
    let burst: String = (1..=6).map(|id| call(id) + "\n").collect();
    c.send_raw(burst.as_bytes());
    // Compared as sent (a `Value` would reorder the keys under serde_json's preserve_order).
    let mut answers: Vec<(u64, String)> = (1..=6)
        .map(|_| {
            let line = c.recv();
            let id = serde_json::from_str::<serde_json::Value>(&line).unwrap()["id"].as_u64().unwrap();
            (id, line)
        })
        .collect();
    answers.sort();
    for (id, line) in &answers[..2] {
        assert_eq!(
            *line,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"call {id}"}}],"isError":false}}}}"#
            )
        );
    }
    for (id, line) in &answers[2..] {
        let answer: serde_json::Value = serde_json::from_str(line).unwrap();
        let ms = answer["error"]["data"]["retryAfterMs"].as_u64().unwrap_or_else(|| panic!("{line}"));
        assert!(ms > 1_100_000 && ms <= 1_200_000, "retryAfterMs {ms}");
        assert_eq!(
            *line,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32029,"message":"rate limited: 'host' is over its request limit; retry in {ms} ms","data":{{"retryAfterMs":{ms}}}}}}}"#
            )
        );
    }
    assert_eq!(answers.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
    // Notifications are never limited, and answer nothing.
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    c.expect_silence(Duration::from_millis(200));
    c.close_stdin();
    assert_eq!(c.wait_exit(Duration::from_secs(10)).map(|s| s.code()), Some(Some(0)));
}
