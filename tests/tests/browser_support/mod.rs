//! A real headless browser for tests: Debian's Chromium, driven by Debian's chromedriver
//! through the W3C WebDriver HTTP API (a few JSON calls over toolwire_tests' raw loopback
//! HTTP client). `bash tests/peers/browser/setup.sh` installs both; without them the tests
//! fail with that instruction (never skip).

#![allow(dead_code, unreachable_pub)]

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Where the setup script puts them (Debian's packages).
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// How long a wait for the page may take before the test fails (generous: a loaded CI box).
pub const WAIT: Duration = Duration::from_secs(30);

/// The W3C name of an element reference's member.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// One chromedriver process with one browser session, both ended on drop.
pub struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    profile: PathBuf,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Browser {
    /// Start chromedriver and a headless Chromium with a fresh profile, sized `width`×`height`.
    pub fn start(width: u32, height: u32) -> Browser {
        for bin in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(bin).is_file(),
                "{bin} is missing: run `bash tests/peers/browser/setup.sh` (it apt-installs Debian's \
                 chromium and chromium-driver)"
            );
        }
        let port = free_port();
        let profile = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("chromium-profile-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).unwrap();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        // Owned at once, so a failure below still kills chromedriver (and its browser).
        let mut browser = Browser { driver, addr, session: String::new(), profile };
        let deadline = Instant::now() + WAIT;
        loop {
            let up = try_request(addr, "GET", "/status", &[host(addr)], "")
                .is_ok_and(|status| status.json()["value"]["ready"] == true);
            if up {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver did not become ready within {WAIT:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
        // The flags this machine needs (no sandbox as root, no network but loopback).
        let args = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            format!("--user-data-dir={}", browser.profile.display()),
            format!("--window-size={width},{height}"),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}
        }}});
        let created = browser.call("POST", "/session", Some(caps));
        browser.session = created["sessionId"].as_str().expect("a session id").to_owned();
        browser
    }

    /// One WebDriver command; its `value`. A WebDriver error fails the test with its message.
    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        match self.try_call(method, path, body) {
            Ok(value) => value,
            Err(error) => panic!("WebDriver {method} {path} failed: {error}"),
        }
    }

    /// One WebDriver command: its `value`, or the error WebDriver answered.
    pub fn try_call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, Value> {
        let mut headers = vec![host(self.addr)];
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        if method == "POST" {
            headers.push(("Content-Type".into(), "application/json".into()));
        }
        let response = request(self.addr, method, path, &headers, &body);
        let value = response.json();
        if response.status == 200 { Ok(value["value"].clone()) } else { Err(value) }
    }

    fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    /// Load `url` in the current tab.
    pub fn goto(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({"url": url})));
    }

    /// The current tab's address.
    pub fn url(&self) -> String {
        self.session_call("GET", "/url", None).as_str().unwrap().to_owned()
    }

    /// The current tab's title.
    pub fn title(&self) -> String {
        self.session_call("GET", "/title", None).as_str().unwrap_or_default().to_owned()
    }

    /// Every element matching `css`, as WebDriver ids.
    pub fn find_all(&self, css: &str) -> Vec<String> {
        let found =
            self.session_call("POST", "/elements", Some(json!({"using": "css selector", "value": css})));
        found.as_array().unwrap().iter().map(|e| e[ELEMENT].as_str().unwrap().to_owned()).collect()
    }

    /// Wait until an element matches `css`; the first.
    pub fn wait_for(&self, css: &str) -> String {
        self.wait_until(&format!("an element matching `{css}`"), || self.find_all(css).into_iter().next())
    }

    /// Poll `check` until it gives a value, failing after [`WAIT`] with `what`.
    pub fn wait_until<T>(&self, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(found) = check() {
                return found;
            }
            assert!(Instant::now() < deadline, "waited {WAIT:?} for {what}; the page is at {}", self.url());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// An element's DOM property (`textContent`, `value`, `hidden`).
    pub fn property(&self, element: &str, name: &str) -> Value {
        self.session_call("GET", &format!("/element/{element}/property/{name}"), None)
    }

    /// An element's `textContent`, or `None` if it left the page meanwhile (a stale
    /// reference: the page re-rendered between finding it and reading it).
    pub fn try_text(&self, element: &str) -> Option<String> {
        let path = format!("/session/{}/element/{element}/property/textContent", self.session);
        self.try_call("GET", &path, None).ok().map(|v| v.as_str().unwrap_or_default().to_owned())
    }

    /// An element's `textContent`.
    pub fn text(&self, element: &str) -> String {
        self.property(element, "textContent").as_str().unwrap_or_default().to_owned()
    }

    /// Click an element.
    pub fn click(&self, element: &str) {
        self.session_call("POST", &format!("/element/{element}/click"), Some(json!({})));
    }

    /// Clear a text field, then type `text` into it.
    pub fn replace_text(&self, element: &str, text: &str) {
        self.session_call("POST", &format!("/element/{element}/clear"), Some(json!({})));
        self.session_call("POST", &format!("/element/{element}/value"), Some(json!({"text": text})));
    }

    /// Open a new tab and switch to it; its handle.
    pub fn new_tab(&self) -> String {
        let handle = self.session_call("POST", "/window/new", Some(json!({"type": "tab"})))["handle"]
            .as_str()
            .unwrap()
            .to_owned();
        self.switch_to(&handle);
        handle
    }

    /// The current tab's handle.
    pub fn tab(&self) -> String {
        self.session_call("GET", "/window", None).as_str().unwrap().to_owned()
    }

    /// Switch to a tab.
    pub fn switch_to(&self, handle: &str) {
        self.session_call("POST", "/window", Some(json!({"handle": handle})));
    }

    /// A PNG of the current tab's viewport.
    pub fn screenshot(&self) -> Vec<u8> {
        use base64::Engine as _;
        let encoded = self.session_call("GET", "/screenshot", None);
        base64::engine::general_purpose::STANDARD.decode(encoded.as_str().unwrap()).unwrap()
    }
}

fn host(addr: SocketAddr) -> (String, String) {
    ("Host".into(), addr.to_string())
}

/// One WebDriver round trip: status and body. Read by `Content-Length` (chromedriver may keep
/// the connection open), with a read timeout longer than Chromium's slowest start on a loaded
/// machine.
struct Reply {
    status: u16,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("WebDriver sent non-JSON ({e}): {}", self.body))
    }
}

fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(String, String)], body: &str) -> Reply {
    try_request(addr, method, path, headers, body)
        .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"))
}

/// [`request`], with a failure to connect, write or read returned: while chromedriver starts,
/// its port can accept a connection and reset it before the server behind it is up.
fn try_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &str,
) -> std::io::Result<Reply> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    let mut raw = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_string();
            let length = head.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.trim().eq_ignore_ascii_case("content-length").then(|| v.trim().parse::<usize>().ok())?
            });
            if let Some(length) = length
                && raw.len() >= end + 4 + length
            {
                let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
                let body = String::from_utf8_lossy(&raw[end + 4..end + 4 + length]).to_string();
                return Ok(Reply { status, body });
            }
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "chromedriver closed the connection mid-reply",
            ));
        }
        raw.extend_from_slice(&buf[..n]);
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let _ = std::panic::catch_unwind(|| request(self.addr, "DELETE", &path, &[host(self.addr)], ""));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
