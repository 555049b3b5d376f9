//! The Redis task store's contract (`toolwire::redis::RedisTaskStore`), on a real Redis
//! (`redis-server` started per test by `tests/src/redis.rs`), in the style of
//! `redis_stores.rs`: a record created once (a taken id is refused) and read back; an inbox
//! written by anyone and emptied by the owner in one step; nothing posted to a task that does
//! not exist; the TTL; key-prefix isolation; Redis down is the store's `Unavailable` error,
//! in bounded time. Replicas sharing it through nginx are in `cluster.rs`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use toolwire::protocol::wire::TaskStatus;
use toolwire::redis::RedisTaskStore;
use toolwire::server::{TaskRecord, TaskStore, TaskStoreError};
use toolwire_tests::redis::RedisServer;

fn record(id: &str, status: &str) -> TaskRecord {
    let text = format!(
        r#"{{"task":{{"taskId":"{id}","status":"{status}","createdAt":"2026-12-07T10:00:00.000000Z","lastUpdatedAt":"2026-12-07T10:00:00.000000Z","ttlMs":60000}},"subject":"alice","owner":"a","leaseUntilMs":1}}"#
    );
    TaskRecord::from_json(&text).unwrap()
}

fn answers(pairs: &[(&str, &str)]) -> BTreeMap<String, Box<RawValue>> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), RawValue::from_string((*v).to_owned()).unwrap())).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn records_inboxes_ttls_and_prefixes() {
    let redis = RedisServer::start();
    let store = RedisTaskStore::open(&redis.url(), "tasks-a").unwrap();
    let ttl = Duration::from_secs(60);

    store.create(&record("t1", "working"), ttl).await.unwrap();
    let taken = store.create(&record("t1", "working"), ttl).await.unwrap_err();
    assert_eq!(
        taken.to_string(),
        "the task store holds an unreadable record for this task: task id t1 is taken"
    );
    let read = store.load("t1").await.unwrap().expect("created");
    assert_eq!(
        (read.task.status, read.subject.as_str(), read.owner.as_str()),
        (TaskStatus::Working, "alice", "a")
    );
    store.save(&record("t1", "completed"), ttl).await.unwrap();
    assert_eq!(store.load("t1").await.unwrap().unwrap().task.status, TaskStatus::Completed);

    // The inbox: answers and a cancellation from anyone, taken once by the owner.
    assert!(!store.post("nope", true, &BTreeMap::new()).await.unwrap(), "no such task");
    assert!(store.post("t1", false, &answers(&[("go", r#"{"action":"accept"}"#)])).await.unwrap());
    assert!(store.post("t1", true, &answers(&[("other", "{}")])).await.unwrap());
    let inbox = store.take("t1").await.unwrap();
    assert!(inbox.cancel);
    assert_eq!(inbox.answers.keys().collect::<Vec<_>>(), ["go", "other"]);
    assert_eq!(inbox.answers["go"].get(), r#"{"action":"accept"}"#);
    let again = store.take("t1").await.unwrap();
    assert!(!again.cancel && again.answers.is_empty(), "taken once");

    // Another prefix is another deployment: it sees nothing of this one.
    let other = RedisTaskStore::open(&redis.url(), "tasks-b").unwrap();
    assert!(other.load("t1").await.unwrap().is_none());

    // The TTL: gone from the store, inbox included.
    store.create(&record("short", "working"), Duration::from_millis(200)).await.unwrap();
    assert!(store.post("short", true, &BTreeMap::new()).await.unwrap());
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert!(store.load("short").await.unwrap().is_none());
    assert!(!store.take("short").await.unwrap().cancel, "the inbox expired with its task");
    assert!(!store.post("short", true, &BTreeMap::new()).await.unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn redis_down_is_unavailable_in_bounded_time() {
    let mut redis = RedisServer::start();
    let store = RedisTaskStore::open(&redis.url(), "tasks-down")
        .unwrap()
        .with_command_timeout(Duration::from_millis(300))
        .unwrap();
    store.create(&record("t", "working"), Duration::from_secs(60)).await.unwrap();
    redis.stop();
    let started = Instant::now();
    let down = store.load("t").await.unwrap_err();
    assert!(matches!(down, TaskStoreError::Unavailable(_)), "{down:?}");
    assert!(down.to_string().starts_with("the task store is unavailable: "), "{down}");
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
}
