//! A real `redis-server` for a test: started as a child process on a free loopback port with
//! nothing persisted (`--save '' --appendonly no`), stopped and started again on the same port
//! (to prove a store's "Redis down" and "Redis back"), and killed when dropped.
//! `tests/peers/redis/setup.sh` installs Debian's `redis-server`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One Redis server of the test's own.
#[derive(Debug)]
pub struct RedisServer {
    port: u16,
    child: Option<Child>,
}

impl RedisServer {
    /// Start one on a free loopback port, and wait until it answers `PING`.
    pub fn start() -> RedisServer {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let mut server = RedisServer { port, child: None };
        server.restart();
        server
    }

    /// `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// Kill it (SIGKILL) and wait for it to be gone: clients see the connection drop.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Start it again on the same port (empty: nothing was persisted), and wait until it
    /// answers `PING`.
    pub fn restart(&mut self) {
        self.stop();
        let child = Command::new("redis-server")
            .args([
                "--port",
                &self.port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server (bash tests/peers/redis/setup.sh installs it)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.command(&["PING"]).is_some_and(|r| r == "+PONG") {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server on port {} did not answer PING within 10 s", self.port);
    }

    /// Wait (at most 5 s) until `n` replicas listen on the fan-out channel of `prefix`
    /// (`toolwire::redis::RedisFanout`): a junk message, which every replica ignores, says
    /// how many heard it.
    pub fn await_listeners(&self, prefix: &str, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(5);
        let channel = format!("{prefix}:notices:all");
        while self.command(&["PUBLISH", &channel, "{}"]).as_deref() != Some(&format!(":{n}")) {
            assert!(Instant::now() < deadline, "{n} replicas did not subscribe to {channel}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Send one command (RESP) and read its first reply line, or `None` when it cannot be
    /// reached. For checks from the test (`DBSIZE`, `KEYS`, `PTTL`): not a client.
    pub fn command(&self, args: &[&str]) -> Option<String> {
        let mut stream = TcpStream::connect_timeout(&self.addr(), Duration::from_millis(200)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
        let mut req = format!("*{}\r\n", args.len());
        for a in args {
            req.push_str(&format!("${}\r\n{a}\r\n", a.len()));
        }
        stream.write_all(req.as_bytes()).ok()?;
        let mut reply = Vec::new();
        let mut byte = [0u8; 1];
        while stream.read(&mut byte).ok()? == 1 {
            if byte[0] == b'\n' {
                break;
            }
            reply.push(byte[0]);
        }
        let line = String::from_utf8_lossy(&reply).trim_end_matches('\r').to_owned();
        // A bulk string: its body is the next line.
        if let Some(len) = line.strip_prefix('$').and_then(|n| n.parse::<i64>().ok()) {
            if len < 0 {
                return Some("(nil)".to_owned());
            }
            let mut body = vec![0u8; usize::try_from(len).ok()? + 2];
            stream.read_exact(&mut body).ok()?;
            body.truncate(body.len() - 2);
            return Some(String::from_utf8_lossy(&body).into_owned());
        }
        Some(line)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
