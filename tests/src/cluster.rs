//! Three toolwire replicas behind a real nginx, as child processes, for the cluster tests
//! (`tests/tests/cluster.rs`) and the cluster bench.
//!
//! [`Cluster::start`] starts the replicas (`tests/src/bin/replica.rs`, each on a port of its
//! own), writes an nginx config into a fresh temp dir ([`nginx_config`]: loopback only; pid,
//! logs and temp paths in the dir; `daemon off`, one process), starts
//! `/usr/sbin/nginx -p DIR -c DIR/nginx.conf` and waits until a request through it is
//! answered. Dropping the cluster (also while a test panics) kills nginx and every replica
//! still running, by pid, and removes the dir. `bash tests/peers/nginx/setup.sh` installs nginx.

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where Debian's nginx is.
pub const NGINX: &str = "/usr/sbin/nginx";

/// The `replica` binary (`tests/src/bin/replica.rs`): `TOOLWIRE_REPLICA` if set, else the one
/// cargo built beside the binary that runs (it builds a package's binaries before its
/// integration tests).
pub fn replica_binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(path) = std::env::var_os("TOOLWIRE_REPLICA") {
            return PathBuf::from(path);
        }
        // Beside a binary of this package (target/<profile>/cluster-up), or beside the
        // directory of a test binary (target/<profile>/deps/<test>).
        let exe = std::env::current_exe().expect("the running binary's path");
        let dir = exe.parent().expect("a binary lives in a directory");
        let beside = dir.join("replica");
        let path = if beside.exists() { beside } else { dir.parent().unwrap_or(dir).join("replica") };
        assert!(
            path.exists(),
            "{} is missing: build it with `cargo build -p toolwire-tests --bin replica`",
            path.display()
        );
        path
    })
}

/// A loopback port free now (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("bind 127.0.0.1:0").port()
}

/// How the replicas run.
#[derive(Debug, Clone, Default)]
pub struct ReplicaOptions {
    /// Legacy sessions on (`--legacy`); stateless otherwise.
    pub legacy: bool,
    /// The `requestState` key, shared by every replica given it.
    pub request_state_key: Option<String>,
    /// `--drain-grace` in seconds (the binary's default, 10, when `None`).
    pub drain_grace: Option<f64>,
    /// `--redis URL`: the shared session store, event store and fan-out.
    pub redis: Option<String>,
    /// `--example-tools`: the example server's tools instead of the replica's own.
    pub example_tools: bool,
    /// `--live`: the server is built `live()`, and its `change` tool changes its tool list.
    pub live: bool,
    /// `--event-store-bytes N`: the byte bound of its `MemoryEventStore` (without Redis).
    pub event_store_bytes: Option<usize>,
}

/// One replica child process.
pub struct Replica {
    /// Its `--name`.
    pub name: String,
    /// Where it listens.
    pub addr: SocketAddr,
    child: Option<Child>,
    stderr: Arc<Mutex<String>>,
}

impl Replica {
    /// Start the replica `name` on `port` (0: any) and wait for its `url` line.
    pub fn start(name: &str, port: u16, options: &ReplicaOptions) -> Replica {
        let mut command = Command::new(replica_binary());
        command.args(["--name", name, "--port", &port.to_string()]);
        if options.legacy {
            command.arg("--legacy");
        }
        if let Some(key) = &options.request_state_key {
            command.args(["--request-state-key", key]);
        }
        if let Some(url) = &options.redis {
            command.args(["--redis", url]);
        }
        if options.example_tools {
            command.arg("--example-tools");
        }
        if options.live {
            command.arg("--live");
        }
        if let Some(bytes) = options.event_store_bytes {
            command.args(["--event-store-bytes", &bytes.to_string()]);
        }
        if let Some(grace) = options.drain_grace {
            command.args(["--drain-grace", &grace.to_string()]);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn a replica");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().expect("piped stderr");
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            sink.lock().unwrap_or_else(|e| e.into_inner()).push_str(&text);
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("read the url line");
        let url =
            line.trim().strip_prefix("url ").unwrap_or_else(|| panic!("replica {name} printed {line:?}"));
        let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").parse().expect("an address");
        Replica { name: name.to_owned(), addr, child: Some(child), stderr }
    }

    /// Its MCP endpoint, reached directly (not through nginx).
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Its process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Send `signal` (`-KILL`, `-TERM`) to it, by its pid.
    pub fn signal(&self, signal: &str) {
        if let Some(pid) = self.pid() {
            let _ = Command::new("kill").args([signal, &pid.to_string()]).status();
        }
    }

    /// Wait (at most `within`) for it to exit; its status and everything it wrote on stderr.
    pub fn wait(&mut self, within: Duration) -> (ExitStatus, String) {
        let mut child = self.child.take().expect("the replica is running");
        let until = Instant::now() + within;
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for a replica") {
                break status;
            }
            if Instant::now() > until {
                let _ = child.kill();
                panic!("replica {} did not exit within {within:?}", self.name);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The reader thread ends with the pipe.
        let until = Instant::now() + Duration::from_secs(2);
        loop {
            let text = self.stderr.lock().unwrap_or_else(|e| e.into_inner()).clone();
            if !text.is_empty() || Instant::now() > until {
                return (status, text);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// nginx round-robin in front of `upstreams` (the config of [`nginx_config`]), in a new
/// directory under the temp dir named after `prefix`: the child, the address it listens on
/// (not yet listening: wait for it), and its directory.
pub fn spawn_nginx(prefix: &str, upstreams: &[SocketAddr]) -> (Child, SocketAddr, PathBuf) {
    let port = free_port();
    let dir = std::env::temp_dir().join(format!("{prefix}-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the nginx dir");
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, nginx_config(&dir, port, upstreams)).expect("write nginx.conf");
    let nginx = Command::new(NGINX)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&conf)
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn nginx (bash tests/peers/nginx/setup.sh installs it)");
    (nginx, SocketAddr::from(([127, 0, 0, 1], port)), dir)
}

/// The nginx config the cluster runs (and the README shows): `listen` on `port`, the
/// `replicas` upstream round-robin over `upstreams`, everything nginx writes under `dir`.
///
/// What is retried: `proxy_next_upstream error timeout` only, and nginx never passes a POST
/// that it has sent to one replica on to another (no `non_idempotent`), so a tool call is
/// retried only when no replica saw it: a refused or failed connect, which is also what a
/// draining replica answers. One that a replica took and lost (killed mid-call) comes back
/// to the client as a 502. `max_fails=1 fail_timeout=5s` takes a replica that failed out of
/// the rotation for 5 s (passive health: nginx OSS has no active checks).
///
/// Upstream connections are kept alive (`keepalive 32`, with HTTP/1.1 and an empty
/// `Connection` header), so a request does not pay for a new TCP connection to its replica.
/// A replica that drains closes its idle connections at once, and nginx drops them from its
/// pool when they close.
///
/// The access log (`access.log`) has a line per request: `METHOD URI STATUS UPSTREAM_ADDR
/// UPSTREAM_STATUS BODY`, the body as nginx escapes it (`"` is `\x22`), so a test can tell
/// which replica took which JSON-RPC method.
pub fn nginx_config(dir: &Path, port: u16, upstreams: &[SocketAddr]) -> String {
    let d = dir.display();
    let servers: String =
        upstreams.iter().map(|a| format!("        server {a} max_fails=1 fail_timeout=5s;\n")).collect();
    format!(
        r#"daemon off;
master_process off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{
    worker_connections 1024;
}}
http {{
    log_format upstream '$request_method $uri $status $upstream_addr $upstream_status $request_body';
    access_log {d}/access.log upstream;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    upstream replicas {{
{servers}        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://replicas;
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Connection "";
            # SSE answers and GET streams go through as they are written.
            proxy_buffering off;
            proxy_read_timeout 300s;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 3;
        }}
    }}
}}
"#
    )
}

/// nginx in front of replicas.
pub struct Cluster {
    /// The replicas, `a`, `b`, `c`.
    pub replicas: Vec<Replica>,
    /// Where nginx listens.
    pub addr: SocketAddr,
    dir: PathBuf,
    nginx: Option<Child>,
}

impl Cluster {
    /// Three replicas and nginx in front of them.
    pub fn start(options: &ReplicaOptions) -> Cluster {
        Cluster::with_replicas(&["a", "b", "c"], options)
    }

    /// These replicas and nginx in front of them.
    pub fn with_replicas(names: &[&str], options: &ReplicaOptions) -> Cluster {
        assert!(Path::new(NGINX).exists(), "{NGINX} is missing: run `bash tests/peers/nginx/setup.sh` first");
        let replicas: Vec<Replica> = names.iter().map(|n| Replica::start(n, 0, options)).collect();
        let upstreams: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
        let (nginx, addr, dir) = spawn_nginx("toolwire-cluster", &upstreams);
        let cluster = Cluster { replicas, addr, dir, nginx: Some(nginx) };
        let until = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_err() {
            assert!(Instant::now() < until, "nginx did not listen on {addr}: {}", cluster.error_log());
            std::thread::sleep(Duration::from_millis(20));
        }
        cluster
    }

    /// The MCP endpoint through nginx.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The replica called `name`.
    pub fn replica(&mut self, name: &str) -> &mut Replica {
        self.replicas.iter_mut().find(|r| r.name == name).unwrap_or_else(|| panic!("no replica {name}"))
    }

    /// nginx's error log so far.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
    }

    /// nginx's access log so far: `METHOD URI STATUS UPSTREAM_ADDR UPSTREAM_STATUS BODY` a
    /// line.
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("access.log")).unwrap_or_default()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(mut nginx) = self.nginx.take() {
            let _ = nginx.kill();
            let _ = nginx.wait();
        }
        self.replicas.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
