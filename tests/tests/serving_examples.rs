//! The serving examples (`examples/src/bin/{live-http,untrusted,redis-replica}.rs`), each a
//! `Server` built once and served by toolwire's own listener with nothing but toolwire and
//! tokio, run as real processes on 127.0.0.1 and spoken to over raw HTTP:
//!
//! - `live-http`: a tool added and removed while it serves, behind its bearer token;
//! - `untrusted`: JWTs checked against a real loopback authorization server's JWKS, a scope
//!   required, approval-gated tools hidden and failures sanitised;
//! - `redis-replica`: two replicas on one real Redis serve one legacy session, directly and
//!   behind nginx, `/readyz` follows the session store by itself, and SIGTERM drains to
//!   exit 0.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwire_tests::authz::{Alg, AuthServer, Claims};
use toolwire_tests::cluster::spawn_nginx;
use toolwire_tests::example_server::example_binary;
use toolwire_tests::http::{RawResponse, mcp_headers, request};
use toolwire_tests::redis::RedisServer;

/// An example binary serving HTTP: the child, its stdout, and the URL it printed first.
struct Example {
    child: Child,
    out: BufReader<ChildStdout>,
    url: String,
    addr: SocketAddr,
}

impl Example {
    fn start(name: &str, args: &[&str], env: &[(&str, &str)]) -> Example {
        let mut child = Command::new(example_binary(name))
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {name}: {e}"));
        let mut out = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut url = String::new();
        out.read_line(&mut url).expect("the example prints its URL");
        let url = url.trim().to_owned();
        let addr = url
            .strip_prefix("http://")
            .and_then(|u| u.strip_suffix("/mcp"))
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("{name} printed {url:?}, not its URL"));
        Example { child, out, url, addr }
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.out.read_line(&mut line).expect("a line from the example");
        line.trim().to_owned()
    }

    fn tell(&mut self, command: &str) {
        let stdin = self.child.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
    }

    /// Close stdin (the examples' cue to drain) and wait for the exit.
    fn finish(&mut self) -> ExitStatus {
        drop(self.child.stdin.take());
        self.exit_within(Duration::from_secs(10))
    }

    fn exit_within(&mut self, wait: Duration) -> ExitStatus {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the example did not exit within {wait:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn headers(addr: SocketAddr, auth: Option<&str>, session: Option<&str>) -> Vec<(String, String)> {
    let mut h = mcp_headers(addr);
    if let Some(auth) = auth {
        h.push(("Authorization".into(), auth.to_owned()));
    }
    if let Some(sid) = session {
        h.push(("Mcp-Session-Id".into(), sid.to_owned()));
        h.push(("MCP-Protocol-Version".into(), "2025-06-18".into()));
    }
    h
}

/// A legacy session on `addr`: its id and the `initialize` result.
fn session(addr: SocketAddr, auth: Option<&str>) -> (String, Value) {
    let r = request(addr, "POST", "/mcp", &headers(addr, auth, None), INIT);
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let done = request(addr, "POST", "/mcp", &headers(addr, auth, Some(&sid)), INITIALIZED);
    assert_eq!(done.status, 202, "{}", done.body);
    (sid, r.json()["result"].clone())
}

fn rpc(addr: SocketAddr, auth: Option<&str>, sid: &str, method: &str, params: Value) -> RawResponse {
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}).to_string();
    request(addr, "POST", "/mcp", &headers(addr, auth, Some(sid)), &body)
}

fn tool_names(r: &RawResponse) -> Vec<String> {
    let tools = r.json()["result"]["tools"].clone();
    tools.as_array().expect("a tools list").iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

fn text(r: &RawResponse) -> String {
    r.json()["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn the_live_http_example_adds_and_removes_a_tool_while_it_serves() {
    let mut live = Example::start("live-http", &[], &[]);
    let auth = live.line().strip_prefix("Authorization: ").expect("the header line").to_owned();
    let addr = live.addr;
    assert_eq!(request(addr, "POST", "/mcp", &headers(addr, None, None), INIT).status, 401);

    let (sid, init) = session(addr, Some(&auth));
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true, "a live server says so");
    let list = || rpc(addr, Some(&auth), &sid, "tools/list", json!({}));
    assert_eq!(tool_names(&list()), ["echo"]);

    live.tell("add");
    let deadline = Instant::now() + Duration::from_secs(10);
    while tool_names(&list()) != ["echo", "shout"] {
        assert!(Instant::now() < deadline, "shout was not added");
        std::thread::sleep(Duration::from_millis(20));
    }
    let shout =
        rpc(addr, Some(&auth), &sid, "tools/call", json!({"name": "shout", "arguments": {"text": "hi"}}));
    assert_eq!(text(&shout), "HI");

    live.tell("remove");
    while tool_names(&list()) != ["echo"] {
        assert!(Instant::now() < deadline, "shout was not removed");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(live.finish().success(), "it drains and exits 0 when stdin closes");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_untrusted_example_checks_jwts_and_hides_and_sanitises() {
    let auth = AuthServer::start().await;
    let (jwks, issuer) = (auth.jwks_url(), auth.issuer().to_owned());
    let mut example = tokio::task::spawn_blocking(move || {
        Example::start("untrusted", &["--jwks", &jwks, "--issuer", &issuer], &[])
    })
    .await
    .unwrap();
    let (addr, url) = (example.addr, example.url.clone());
    let alice = format!("Bearer {}", auth.mint(Alg::Rs256, &Claims::new("alice", "mcp", &url)));
    let es = format!("Bearer {}", auth.mint(Alg::Es256, &Claims::new("erin", "mcp", &url)));
    let unscoped = format!("Bearer {}", auth.mint(Alg::Rs256, &Claims::new("bob", "other", &url)));

    tokio::task::spawn_blocking(move || {
        let none = request(addr, "POST", "/mcp", &headers(addr, None, None), INIT);
        assert_eq!(none.status, 401);
        assert!(
            none.header("www-authenticate").unwrap().contains("resource_metadata="),
            "{:?}",
            none.headers
        );
        let r = request(addr, "POST", "/mcp", &headers(addr, Some(&unscoped), None), INIT);
        assert_eq!(r.status, 403);
        assert!(r.header("www-authenticate").unwrap().contains(r#"error="insufficient_scope""#));

        let (sid, _) = session(addr, Some(&alice));
        let who = rpc(addr, Some(&alice), &sid, "tools/call", json!({"name": "whoami", "arguments": {}}));
        assert_eq!(text(&who), r#"alice ["mcp"]"#);
        let listed = rpc(addr, Some(&alice), &sid, "tools/list", json!({}));
        assert_eq!(tool_names(&listed), ["read_note", "whoami"], "the approval-gated tool is hidden");
        let failed = rpc(
            addr,
            Some(&alice),
            &sid,
            "tools/call",
            json!({"name": "read_note", "arguments": {"name": "x"}}),
        );
        assert_eq!(failed.json()["result"]["isError"], true);
        assert_eq!(text(&failed), "tool 'read_note' failed", "the detail stays in the log");

        // An ES256 token: the algorithms the example names through `toolwire::http::Algorithm`.
        let (sid, _) = session(addr, Some(&es));
        let who = rpc(addr, Some(&es), &sid, "tools/call", json!({"name": "whoami", "arguments": {}}));
        assert_eq!(text(&who), r#"erin ["mcp"]"#);
        assert!(example.finish().success());
    })
    .await
    .unwrap();
}

#[test]
fn two_redis_replicas_share_a_session_and_report_the_store_in_readyz() {
    let mut redis = RedisServer::start();
    let url = redis.url();
    let env = [("MCP_TOKEN", "a-long-random-secret-every-replica-shares")];
    let mut a = Example::start("redis-replica", &["--redis", &url], &env);
    let b = Example::start("redis-replica", &["--redis", &url], &env);
    let auth = Some("Bearer a-long-random-secret-every-replica-shares");
    assert_eq!(request(a.addr, "POST", "/mcp", &headers(a.addr, None, None), INIT).status, 401);

    // Made on A, served on B: the session lives in Redis.
    let (sid, _) = session(a.addr, auth);
    let echo = json!({"name": "echo", "arguments": {"text": "hi"}});
    let on_b = rpc(b.addr, auth, &sid, "tools/call", echo.clone());
    assert_eq!(on_b.status, 200, "{}", on_b.body);
    assert!(text(&on_b).starts_with("hi (from replica "), "{}", on_b.body);

    let readyz = |addr: SocketAddr| {
        let r = request(addr, "GET", "/readyz", &mcp_headers(addr), "");
        (r.status, r.body)
    };
    assert_eq!(readyz(a.addr), (200, "ready".to_owned()));
    redis.stop();
    let (status, body) = readyz(b.addr);
    assert_eq!(status, 503);
    assert!(body.starts_with("not ready: session store: unavailable: "), "{body}");
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(10);
    while readyz(a.addr).0 != 200 || readyz(b.addr).0 != 200 {
        assert!(Instant::now() < deadline, "Redis is back, but /readyz is still 503");
        std::thread::sleep(Duration::from_millis(100));
    }

    // Behind nginx (round robin, as the cluster tests run it): one session's calls land on
    // both replicas, each answering from the session Redis keeps.
    let nginx = Nginx::start(&[a.addr, b.addr]);
    let (sid, _) = session(nginx.addr, auth);
    let mut answered_by = std::collections::BTreeSet::new();
    for _ in 0..6 {
        let r = rpc(nginx.addr, auth, &sid, "tools/call", echo.clone());
        assert_eq!(r.status, 200, "{}", r.body);
        answered_by.insert(text(&r));
    }
    assert_eq!(answered_by.len(), 2, "both replicas served the session: {answered_by:?}");

    // SIGTERM drains A: it exits 0, and the session goes on through nginx on B.
    let pid = a.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    assert!(a.exit_within(Duration::from_secs(10)).success());
    for _ in 0..4 {
        let r = rpc(nginx.addr, auth, &sid, "tools/call", echo.clone());
        assert_eq!(r.status, 200, "{}", r.body);
    }
}

/// nginx in front of `upstreams` (`toolwire_tests::cluster::nginx_config`), killed on drop.
struct Nginx {
    child: Child,
    addr: SocketAddr,
    dir: std::path::PathBuf,
}

impl Nginx {
    fn start(upstreams: &[SocketAddr]) -> Nginx {
        let (child, addr, dir) = spawn_nginx("toolwire-examples-nginx", upstreams);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(Instant::now() < deadline, "nginx did not listen on {addr}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Nginx { child, addr, dir }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
