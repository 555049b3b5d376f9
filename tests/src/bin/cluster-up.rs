//! Bring a cluster up for the bench (`bench/cluster.sh`): `tests/src/cluster.rs`'s replicas
//! behind nginx, until stdin closes; then everything is torn down.
//!
//! ```text
//! cluster-up --replicas N [--legacy] [--redis URL] [--direct]
//! ```
//!
//! Prints `url <nginx URL>`, then `replica <name> <URL>` for each replica, then `ready` (the
//! lines `bench/src/bin/http-bench.rs` reads). `--direct`: one replica and no nginx; `url` is
//! the replica's own.

use std::io::{Read, Write};

use toolwire_tests::cluster::{Cluster, Replica, ReplicaOptions};

fn main() {
    let mut options = ReplicaOptions::default();
    let mut replicas = 3;
    let mut direct = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--replicas" => replicas = args.next().and_then(|n| n.parse().ok()).expect("--replicas N"),
            "--legacy" => options.legacy = true,
            "--direct" => direct = true,
            "--redis" => options.redis = Some(args.next().expect("--redis URL")),
            other => {
                eprintln!("cluster-up: unknown flag '{other}'");
                std::process::exit(2);
            }
        }
    }
    let mut out = std::io::stdout();
    if direct {
        let replica = Replica::start("a", 0, &options);
        let _ = writeln!(out, "url {}\nready", replica.url());
        let _ = out.flush();
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        drop(replica);
        return;
    }
    let names: Vec<String> = (0..replicas).map(|i| ((b'a' + i as u8) as char).to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let cluster = Cluster::with_replicas(&names, &options);
    let _ = writeln!(out, "url {}", cluster.url());
    for r in &cluster.replicas {
        let _ = writeln!(out, "replica {} {}", r.name, r.url());
    }
    let _ = writeln!(out, "ready");
    let _ = out.flush();
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    drop(cluster);
}
