//! The `main` that `serve_registry!` expands to: flags, logging to stderr (`stderr`: a
//! `tracing` subscriber of toolwire's own, one line per event), a tokio runtime,
//! and serving over stdio until stdin closes (or, with the `http` feature and `--http`, over
//! loopback HTTP until SIGINT or SIGTERM, which drain it: `--drain-grace`).
//!
//! Without the `http` feature, `--help` lists no HTTP flags and `--http`, `--port` and
//! `--show-token` are usage errors that say the binary was built without it: the expansion
//! of `serve_registry!` is the same either way (a proc macro cannot see the runtime's
//! features), and this module decides.
//!
//! Exit codes: 0 when the client closed stdin (or `--help`/`--version`), 1 when serving
//! failed or the registry could not be built, 2 for a usage error.

mod stderr;

use std::ffi::OsString;
use std::time::Duration;

use crate::prompt::{PromptRegistry, PromptRegistryError};
use crate::registry::{RegistryError, ToolRegistry};
use crate::resource::{ResourceRegistry, ResourceRegistryError};
use crate::server::{
    DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_PAGE_SIZE, Server, ServerBuilder, ServerOptions,
};

/// What the `serve_registry!` invocation fixed at compile time.
#[derive(Debug, Clone, Copy)]
pub struct MainSpec {
    /// `serverInfo.name`: the `name = ".."` given, else the user crate's `CARGO_PKG_NAME`
    /// (with `server = ..`: the crate's name, for `--help` and `--version` only; the server
    /// names itself).
    pub name: &'static str,
    /// `serverInfo.version`: the user crate's `CARGO_PKG_VERSION`, unless `version = ".."`.
    pub version: &'static str,
    /// `serverInfo.title`, when `title = ".."` was given.
    pub title: Option<&'static str>,
    /// The instructions, when `instructions = ".."` was given.
    pub instructions: Option<&'static str>,
    /// `server = ..`: the server was built in code, its [`ServerOptions`] with it, so the
    /// flags that set them are refused.
    pub built_in_code: bool,
}

/// What a server binary serves, from `serve_registry!`'s lists: one [`ServerBuilder`] given
/// the tools, and the resources and prompts when `resources = [..]` or `prompts = [..]` was
/// given (a capability is advertised only when given). It keeps the first registry error, so
/// `main` reports it and exits 1.
pub struct Surface {
    built: Result<ServerBuilder, String>,
}

impl Surface {
    /// A server under `options` serving these tools (`tools![..]`'s result).
    pub fn new(options: ServerOptions, tools: Result<ToolRegistry, RegistryError>) -> Surface {
        Surface { built: tools.map(|tools| Server::builder(options).tools(tools)).map_err(|e| e.to_string()) }
    }

    /// Serve these resources too (`resources![..]`'s result).
    pub fn resources(self, resources: Result<ResourceRegistry, ResourceRegistryError>) -> Surface {
        let built = self.built.and_then(|b| Ok(b.resources(resources.map_err(|e| e.to_string())?)));
        Surface { built }
    }

    /// Serve these prompts too (`prompts![..]`'s result).
    pub fn prompts(self, prompts: Result<PromptRegistry, PromptRegistryError>) -> Surface {
        let built = self.built.and_then(|b| Ok(b.prompts(prompts.map_err(|e| e.to_string())?)));
        Surface { built }
    }
}

/// What [`serve_main`]'s closure may return: a [`Surface`] (the lists), a [`Server`] built in
/// code (`server = ..`), or a `Result` of one whose error is displayed when it fails.
#[diagnostic::on_unimplemented(
    message = "`serve_registry!(server = ..)` serves a `toolwire::Server`, or a `Result<Server, E>` whose error displays; this is `{Self}`",
    label = "not a `Server`",
    note = "build one with `Server::builder(options)..build()` (or `Server::new(registry, options)`)"
)]
pub trait IntoServer {
    /// The server, or why it could not be built.
    fn into_server(self) -> Result<Server, String>;
}

impl IntoServer for Surface {
    fn into_server(self) -> Result<Server, String> {
        self.built.map(ServerBuilder::build)
    }
}

impl IntoServer for Server {
    fn into_server(self) -> Result<Server, String> {
        Ok(self)
    }
}

impl<E: std::fmt::Display> IntoServer for Result<Server, E> {
    fn into_server(self) -> Result<Server, String> {
        self.map_err(|e| e.to_string())
    }
}

/// Run a server binary's `main`: parse the flags, build the server (inside the runtime, so
/// that what it opens, a Redis fan-out say, finds one) from the options the flags and the
/// invocation say, serve it over stdio or `--http`, exit.
pub fn serve_main<S: IntoServer>(spec: MainSpec, server: impl FnOnce(ServerOptions) -> S) -> ! {
    let flags = match parse(std::env::args_os().skip(1), spec.built_in_code) {
        Ok(Command::Serve(flags)) => flags,
        Ok(Command::Help) => {
            print!("{}", help(&spec));
            std::process::exit(0);
        }
        Ok(Command::Version) => {
            println!("{} {}", spec.name, spec.version);
            std::process::exit(0);
        }
        Err(message) => {
            eprintln!("error: {message}\n\nRun with --help to see the flags that exist.");
            std::process::exit(2);
        }
    };
    stderr::install(flags.log_level);
    let mut builder = match runtime_threads(&flags) {
        RuntimeThreads::One => tokio::runtime::Builder::new_current_thread(),
        #[cfg(feature = "http")]
        RuntimeThreads::PerCore => tokio::runtime::Builder::new_multi_thread(),
        #[cfg(feature = "multi-thread")]
        RuntimeThreads::Exactly(n) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let built = {
        let _entered = runtime.enter();
        server(flags.options(&spec)).into_server()
    };
    let server = match built {
        Ok(server) => server,
        Err(e) => {
            tracing::error!("cannot serve {}: {e}", spec.name);
            exit(runtime, Ok(()), 1);
        }
    };
    #[cfg(feature = "http")]
    if flags.http {
        let result = runtime.block_on(serve_http(server, &flags));
        exit(runtime, result, 0);
    }
    let stdio = crate::transport::stdio::StdioConfig::new().ping_interval(flags.ping_interval);
    let result = runtime.block_on(crate::transport::stdio::serve(server, stdio)).map_err(|e| e.to_string());
    exit(runtime, result, 0)
}

/// The runtime `serve_main` builds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum RuntimeThreads {
    /// A current-thread runtime.
    One,
    /// A multi-threaded runtime with one worker per core (tokio's default).
    #[cfg(feature = "http")]
    PerCore,
    /// A multi-threaded runtime with this many workers (`--worker-threads N`).
    #[cfg(feature = "multi-thread")]
    Exactly(usize),
}

/// Which runtime serves: `--worker-threads N` if given; else one thread over stdio and one
/// worker per core over `--http`.
///
/// Over stdio there is one client, whose lines one reader takes in turn: on one thread the
/// serving loop and every async call share it and a sync body runs in place on the reader,
/// and the multi-threaded runtime's hand-offs between workers cost more than they buy
/// (bench/results.md). Over HTTP connections are served side by side, and a sync body runs
/// in place on the runtime worker that polls it only when another worker is left to serve
/// the rest; on one thread it has to go to a sync worker and back. Measured with
/// `http-bench --mode session --connections 16` against `toolwire-http-main --http` on 2
/// cores (bench/findings.md, medians of 6 rounds): the README's sync tool 5.7k requests/s on
/// one thread against 25.4k on one worker per core; the async tool 25.4k against 25.2k.
fn runtime_threads(flags: &Flags) -> RuntimeThreads {
    #[cfg(feature = "multi-thread")]
    if let Some(n) = flags.worker_threads {
        return RuntimeThreads::Exactly(n);
    }
    #[cfg(feature = "http")]
    if flags.http {
        return RuntimeThreads::PerCore;
    }
    // A tools-only build without `multi-thread` has no flag to read.
    let _ = flags;
    RuntimeThreads::One
}

/// Shut the runtime down and exit: `code` when serving ended cleanly, 1 (after logging why)
/// when it failed.
fn exit(runtime: tokio::runtime::Runtime, result: Result<(), String>, code: i32) -> ! {
    // A sync tool still running on the blocking pool must not hold the exit up.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match result {
        Ok(()) => std::process::exit(code),
        Err(e) => {
            tracing::error!("{e}");
            std::process::exit(1);
        }
    }
}

/// Serve over loopback HTTP until SIGINT or SIGTERM, printing where and how to connect
/// (never the token, unless `--show-token`).
#[cfg(feature = "http")]
async fn serve_http(server: Server, flags: &Flags) -> Result<(), String> {
    use crate::transport::http::{Auth, BearerToken, Drain, HttpConfig};
    let version = server.options().version().to_owned();
    let drain = Drain::new().grace(flags.drain_grace);
    let http = HttpConfig::new(Auth::Bearer(BearerToken::generate())).drain(drain.clone());
    let mut serve = crate::spec::SpecOptions::http().http_config(http);
    if let Some(port) = flags.port {
        serve = serve.port(port);
    }
    let mut mcp = crate::spec::serve_registry(server, serve).map_err(|e| e.to_string())?;
    let shutdown = ShutdownSignal::listen();
    mcp.start().map_err(|e| e.to_string())?;
    let url = mcp.url().unwrap_or_default();
    let config = mcp.config_path().display();
    println!("{} {version} serving MCP (streamable HTTP) at {url}", mcp.name());
    println!("auth: a bearer token, generated for this run; it is in the config file below");
    println!("claude: claude --mcp-config {config} --strict-mcp-config");
    if flags.show_token {
        for (k, v) in mcp.auth_headers() {
            println!("header: {k}: {v}");
        }
    } else {
        println!("(pass --show-token to print the Authorization header)");
    }
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    shutdown.recv().await;
    // Drain: refuse new connections, let the requests in flight finish (within the grace).
    drain.begin();
    mcp.close_listener();
    let cut_off = drain.finished().await;
    if cut_off > 0 {
        tracing::warn!("drain: {cut_off} requests still in flight after {:?}; cut off", drain.grace_period());
    }
    mcp.stop();
    Ok(())
}

/// SIGINT or SIGTERM, listened for from the moment this is made.
///
/// The listeners are registered eagerly, before the server prints how to connect: a supervisor
/// that reads those lines and stops the server at once must reach our handler (and so the
/// config file's deletion), not the default disposition that kills the process where it stands.
#[cfg(feature = "http")]
struct ShutdownSignal {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

#[cfg(feature = "http")]
impl ShutdownSignal {
    fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Self {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    async fn recv(mut self) {
        #[cfg(unix)]
        {
            async fn next(signal: &mut Option<tokio::signal::unix::Signal>) {
                match signal {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            crate::race::first(next(&mut self.interrupt), next(&mut self.terminate)).await;
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// The flags a server binary takes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Flags {
    #[cfg(feature = "http")]
    pub(crate) http: bool,
    #[cfg(feature = "http")]
    pub(crate) port: Option<u16>,
    #[cfg(feature = "multi-thread")]
    pub(crate) worker_threads: Option<usize>,
    #[cfg(feature = "http")]
    pub(crate) show_token: bool,
    #[cfg(feature = "http")]
    pub(crate) drain_grace: Duration,
    pub(crate) deadline: Option<Duration>,
    pub(crate) max_in_flight: usize,
    pub(crate) max_message_bytes: usize,
    pub(crate) page_size: usize,
    pub(crate) ping_interval: Option<Duration>,
    pub(crate) log_level: tracing::level_filters::LevelFilter,
}

impl Default for Flags {
    fn default() -> Self {
        Flags {
            #[cfg(feature = "http")]
            http: false,
            #[cfg(feature = "http")]
            port: None,
            #[cfg(feature = "multi-thread")]
            worker_threads: None,
            #[cfg(feature = "http")]
            show_token: false,
            #[cfg(feature = "http")]
            drain_grace: crate::transport::http::DEFAULT_DRAIN_GRACE,
            deadline: None,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_message_bytes: DEFAULT_MAX_MESSAGE_SIZE,
            page_size: DEFAULT_PAGE_SIZE,
            ping_interval: None,
            log_level: tracing::level_filters::LevelFilter::INFO,
        }
    }
}

impl Flags {
    fn options(&self, spec: &MainSpec) -> ServerOptions {
        let mut b = ServerOptions::new(spec.name, spec.version)
            .deadline(self.deadline)
            .max_in_flight(self.max_in_flight)
            .max_message_size(self.max_message_bytes)
            .page_size(self.page_size);
        if let Some(t) = spec.title {
            b = b.title(t);
        }
        if let Some(i) = spec.instructions {
            b = b.instructions(i);
        }
        b
    }
}

#[derive(Debug, PartialEq)]
pub(crate) enum Command {
    Serve(Flags),
    Help,
    Version,
}

/// A feature of toolwire's that a flag needs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Needs {
    /// Every build has the flag.
    Nothing,
    /// The `http` feature: loopback HTTP.
    Http,
    /// The `multi-thread` feature (on with `http`): a multi-threaded runtime.
    MultiThread,
    /// Server options the main sets: not with `server = ..`, whose options were set in code.
    Options,
}

impl Needs {
    /// Whether this build, and this main (`built_in_code`: `server = ..`), has what the flag
    /// needs.
    fn met(self, built_in_code: bool) -> bool {
        match self {
            Needs::Nothing => true,
            Needs::Http => cfg!(feature = "http"),
            Needs::MultiThread => cfg!(feature = "multi-thread"),
            Needs::Options => !built_in_code,
        }
    }
}

/// The flag table: (long name, value name, help, the feature it needs). `--help` is
/// generated from it, so it lists exactly the flags that exist in this build.
const FLAGS: &[(&str, Option<&str>, &str, Needs)] = &[
    ("--stdio", None, "Serve MCP over stdin and stdout (the default)", Needs::Nothing),
    (
        "--http",
        None,
        "Serve MCP streamable HTTP on 127.0.0.1 with a generated bearer token, until SIGINT/SIGTERM",
        Needs::Http,
    ),
    ("--port", Some("PORT"), "With --http: listen on this port (default: one the OS picks)", Needs::Http),
    (
        "--show-token",
        None,
        "With --http: print the Authorization header (it is always in the config file)",
        Needs::Http,
    ),
    (
        "--drain-grace",
        Some("SECONDS"),
        "With --http: on SIGTERM/SIGINT, wait this long for requests in flight before exiting (default: 30)",
        Needs::Http,
    ),
    (
        "--deadline",
        Some("SECONDS"),
        "Abandon a tool call still running after this long (default: never)",
        Needs::Options,
    ),
    (
        "--worker-threads",
        Some("N"),
        "Run calls on N runtime threads (default: one over stdio, one per core over HTTP)",
        Needs::MultiThread,
    ),
    (
        "--max-in-flight",
        Some("N"),
        "Run at most N tool calls at once; later calls wait (default: 32)",
        Needs::Options,
    ),
    (
        "--max-message-bytes",
        Some("N"),
        "Refuse an inbound message longer than N bytes (default: 16777216)",
        Needs::Options,
    ),
    ("--page-size", Some("N"), "Tools per tools/list page (default: 100)", Needs::Options),
    (
        "--ping-interval",
        Some("SECONDS"),
        "Ping the client of a legacy session this often (default: never)",
        Needs::Nothing,
    ),
    (
        "--log-level",
        Some("LEVEL"),
        "off, error, warn, info, debug or trace; logs go to stderr (default: info)",
        Needs::Nothing,
    ),
    ("--help", None, "Print this help and exit (also -h)", Needs::Nothing),
    ("--version", None, "Print the server's name and version and exit (also -V)", Needs::Nothing),
];

/// The flags of this build and main: each only with what it needs.
fn available_flags(
    built_in_code: bool,
) -> impl Iterator<Item = &'static (&'static str, Option<&'static str>, &'static str, Needs)> {
    FLAGS.iter().filter(move |(_, _, _, needs)| needs.met(built_in_code))
}

pub(crate) fn help(spec: &MainSpec) -> String {
    let transports = if cfg!(feature = "http") {
        "Speaks MCP over stdin/stdout until stdin closes (or, with --http, over loopback HTTP)"
    } else {
        "Speaks MCP over stdin/stdout until stdin closes"
    };
    let mut out = format!(
        "{name} {version}: an MCP server. {transports}; logs go to stderr.\n\nUsage: {name} [FLAGS]\n\nFlags:\n",
        name = spec.name,
        version = spec.version
    );
    for (name, value, text, _) in available_flags(spec.built_in_code) {
        let left = match value {
            Some(v) => format!("{name} <{v}>"),
            None => (*name).to_owned(),
        };
        out.push_str(&format!("  {left:<28} {text}\n"));
    }
    out
}

pub(crate) fn parse(
    args: impl IntoIterator<Item = OsString>,
    built_in_code: bool,
) -> Result<Command, String> {
    let mut flags = Flags::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg.into_string().map_err(|a| format!("argument {a:?} is not valid UTF-8"))?;
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let takes_value = match FLAGS.iter().find(|(n, _, _, _)| *n == name) {
            // Rule: a flag in a build without the feature it needs is refused by name,
            // saying why, rather than as an unknown flag.
            Some((_, _, _, needs)) if !needs.met(built_in_code) => return Err(unavailable(&name, *needs)),
            Some((_, value, _, _)) => value.is_some(),
            None => {
                return Err(match name.as_str() {
                    "-h" => return Ok(Command::Help),
                    "-V" => return Ok(Command::Version),
                    n if n.starts_with('-') => format!("unknown flag '{n}'"),
                    n => format!("unexpected argument '{n}': this server takes flags only"),
                });
            }
        };
        if !takes_value && inline.is_some() {
            return Err(format!("flag '{name}' takes no value"));
        }
        let value = match (takes_value, inline) {
            (false, _) => String::new(),
            (true, Some(v)) => v,
            (true, None) => match args.next().map(OsString::into_string) {
                Some(Ok(v)) => v,
                _ => return Err(format!("flag '{name}' needs a value")),
            },
        };
        match name.as_str() {
            "--help" => return Ok(Command::Help),
            "--version" => return Ok(Command::Version),
            #[cfg(feature = "http")]
            "--stdio" => flags.http = false,
            #[cfg(not(feature = "http"))]
            "--stdio" => {}
            #[cfg(feature = "http")]
            "--http" => flags.http = true,
            #[cfg(feature = "http")]
            "--show-token" => flags.show_token = true,
            #[cfg(feature = "http")]
            "--port" => {
                flags.port = Some(value.parse::<u16>().map_err(|_| {
                    format!("invalid value '{value}' for '{name}': expected a port number from 0 to 65535")
                })?);
            }
            #[cfg(feature = "http")]
            "--drain-grace" => flags.drain_grace = seconds(&name, &value)?,
            "--deadline" => flags.deadline = Some(seconds(&name, &value)?),
            "--ping-interval" => flags.ping_interval = Some(seconds(&name, &value)?),
            "--max-in-flight" => flags.max_in_flight = count(&name, &value)?,
            #[cfg(feature = "multi-thread")]
            "--worker-threads" => flags.worker_threads = Some(count(&name, &value)?),
            "--max-message-bytes" => flags.max_message_bytes = count(&name, &value)?,
            "--page-size" => flags.page_size = count(&name, &value)?,
            "--log-level" => {
                flags.log_level = value.parse().map_err(|_| {
                    format!("invalid value '{value}' for '{name}': expected off, error, warn, info, debug or trace")
                })?;
            }
            _ => unreachable_flag(&name)?,
        }
    }
    #[cfg(feature = "http")]
    if !flags.http && (flags.port.is_some() || flags.show_token) {
        return Err("'--port' and '--show-token' go with '--http'".to_owned());
    }
    Ok(Command::Serve(flags))
}

/// The usage error for a flag in a build without the feature it needs.
fn unavailable(name: &str, needs: Needs) -> String {
    match needs {
        Needs::Options => format!(
            "'{name}' is not available: this server's options are set in code (`serve_registry!(server = ..)`); set them on its `ServerOptions` there"
        ),
        Needs::MultiThread => format!(
            "'{name}' is not available: this server was built without toolwire's `multi-thread` feature, so it runs on one thread (enable `multi-thread`, or `http`, on its toolwire dependency to run calls on several)"
        ),
        _ => format!(
            "'{name}' is not available: this server was built without toolwire's `http` feature, so it serves MCP over stdio only (enable the feature on its toolwire dependency to serve over loopback HTTP)"
        ),
    }
}

/// Every name in [`FLAGS`] is matched above; this only keeps the match total.
fn unreachable_flag(name: &str) -> Result<(), String> {
    Err(format!("unknown flag '{name}'"))
}

fn seconds(name: &str, value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("invalid value '{value}' for '{name}': expected a positive number of seconds"))
}

fn count(name: &str, value: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("invalid value '{value}' for '{name}': expected a positive integer"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from), false)
    }

    #[test]
    fn flags_parse_in_both_spellings() {
        let Command::Serve(f) =
            run(&["--deadline", "0.05", "--max-in-flight=4", "--stdio", "--log-level", "warn"]).unwrap()
        else {
            panic!("not a serve command")
        };
        assert_eq!(f.deadline, Some(Duration::from_millis(50)));
        assert_eq!(f.max_in_flight, 4);
        assert_eq!(f.log_level, tracing::level_filters::LevelFilter::WARN);
        assert_eq!(run(&[]).unwrap(), Command::Serve(Flags::default()));
        assert_eq!(run(&["-h"]).unwrap(), Command::Help);
        assert_eq!(run(&["--version"]).unwrap(), Command::Version);
    }

    #[test]
    fn usage_errors_say_what_is_wrong() {
        assert_eq!(run(&["--frobnicate"]).unwrap_err(), "unknown flag '--frobnicate'");
        assert_eq!(run(&["serve"]).unwrap_err(), "unexpected argument 'serve': this server takes flags only");
        assert_eq!(run(&["--deadline"]).unwrap_err(), "flag '--deadline' needs a value");
        assert_eq!(
            run(&["--deadline", "-1"]).unwrap_err(),
            "invalid value '-1' for '--deadline': expected a positive number of seconds"
        );
        assert_eq!(
            run(&["--page-size=0"]).unwrap_err(),
            "invalid value '0' for '--page-size': expected a positive integer"
        );
        assert_eq!(run(&["--stdio=yes"]).unwrap_err(), "flag '--stdio' takes no value");
    }

    #[test]
    fn a_server_built_in_code_refuses_the_flags_that_set_its_options() {
        let built = |args: &[&str]| parse(args.iter().map(OsString::from), true);
        assert_eq!(
            built(&["--deadline", "5"]).unwrap_err(),
            "'--deadline' is not available: this server's options are set in code (`serve_registry!(server = ..)`); set them on its `ServerOptions` there"
        );
        assert!(built(&["--max-in-flight=2"]).is_err() && built(&["--page-size", "3"]).is_err());
        assert!(built(&["--ping-interval", "1", "--log-level", "warn"]).is_ok());
    }

    #[cfg(feature = "multi-thread")]
    #[test]
    fn worker_threads_parse_as_a_positive_count() {
        let Command::Serve(f) = run(&["--worker-threads", "4"]).unwrap() else { panic!() };
        assert_eq!(f.worker_threads, Some(4));
        assert_eq!(
            run(&["--worker-threads", "0"]).unwrap_err(),
            "invalid value '0' for '--worker-threads': expected a positive integer"
        );
    }

    #[cfg(not(feature = "multi-thread"))]
    #[test]
    fn worker_threads_are_refused_naming_the_feature() {
        for args in [&["--worker-threads", "2"][..], &["--worker-threads=2"]] {
            assert_eq!(
                run(args).unwrap_err(),
                "'--worker-threads' is not available: this server was built without toolwire's `multi-thread` feature, so it runs on one thread (enable `multi-thread`, or `http`, on its toolwire dependency to run calls on several)"
            );
        }
    }

    #[test]
    fn one_runtime_thread_over_stdio_one_worker_per_core_over_http_unless_told() {
        let threads = |args: &[&str]| match run(args).unwrap() {
            Command::Serve(f) => runtime_threads(&f),
            other => panic!("{other:?}"),
        };
        assert_eq!(threads(&[]), RuntimeThreads::One);
        #[cfg(feature = "multi-thread")]
        assert_eq!(threads(&["--worker-threads", "3"]), RuntimeThreads::Exactly(3));
        #[cfg(feature = "http")]
        {
            assert_eq!(threads(&["--http"]), RuntimeThreads::PerCore);
            assert_eq!(threads(&["--http", "--worker-threads", "1"]), RuntimeThreads::Exactly(1));
        }
    }

    #[cfg(feature = "http")]
    #[test]
    fn http_flags_parse_and_go_together() {
        assert_eq!(run(&["--port", "8080"]).unwrap_err(), "'--port' and '--show-token' go with '--http'");
        assert_eq!(
            run(&["--http", "--port", "99999"]).unwrap_err(),
            "invalid value '99999' for '--port': expected a port number from 0 to 65535"
        );
        let Command::Serve(f) = run(&["--http", "--port=8080", "--show-token"]).unwrap() else { panic!() };
        assert!(f.http && f.show_token);
        assert_eq!(f.port, Some(8080));
        let Command::Serve(f) = run(&["--http", "--stdio"]).unwrap() else { panic!() };
        assert!(!f.http);
        let Command::Serve(f) = run(&["--http", "--drain-grace", "2.5"]).unwrap() else { panic!() };
        assert_eq!(f.drain_grace, Duration::from_millis(2500));
        assert_eq!(
            run(&["--http", "--drain-grace=0"]).unwrap_err(),
            "invalid value '0' for '--drain-grace': expected a positive number of seconds"
        );
    }

    #[cfg(not(feature = "http"))]
    #[test]
    fn http_flags_are_refused_naming_the_feature() {
        for args in [&["--http"][..], &["--port", "8080"], &["--port=8080"], &["--show-token"]] {
            let name = args[0].split('=').next().unwrap();
            assert_eq!(
                run(args).unwrap_err(),
                format!(
                    "'{name}' is not available: this server was built without toolwire's `http` feature, so it serves MCP over stdio only (enable the feature on its toolwire dependency to serve over loopback HTTP)"
                )
            );
        }
        assert_eq!(run(&["--stdio"]).unwrap(), Command::Serve(Flags::default()));
    }

    #[test]
    fn help_lists_every_flag_of_this_build() {
        let spec = MainSpec {
            name: "demo",
            version: "1.0.0",
            title: None,
            instructions: None,
            built_in_code: false,
        };
        let text = help(&spec);
        assert!(text.starts_with("demo 1.0.0: an MCP server."));
        for (name, _, _, needs) in FLAGS {
            let listed = text.lines().any(|l| l.trim_start().starts_with(&format!("{name} ")));
            assert_eq!(listed, needs.met(false), "{name} listed: {listed}");
        }
        let built = help(&MainSpec { built_in_code: true, ..spec });
        assert!(
            !built.contains("--deadline") && !built.contains("--page-size") && built.contains("--log-level")
        );
        assert_eq!(text.contains("--http"), cfg!(feature = "http"));
        assert_eq!(text.contains("--worker-threads"), cfg!(feature = "multi-thread"));
    }
}
