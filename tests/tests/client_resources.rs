//! The client's resources against server-everything (npm), over stdio and over Streamable
//! HTTP: typed contents (text and blob items with their MIME types), the flattened view,
//! templates, a subscription receiving `notifications/resources/updated`, and an adopted
//! tool keeping the `structuredContent` the server sent. Needs the peers:
//! `bash tests/peers/setup.sh`.

mod client_support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use client_support::{everything, peer};
use serde_json::json;
use toolwire::client::{
    AdoptOptions, CallOptions, Client, ClientOptions, HttpServer, ResourceContent, UntrustedText, UpdateFn,
};

/// Decode standard base64 (the test's own, to check a blob's bytes).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|c| *c != b'=').map(value).collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, d)| n | (u32::from(*d) << (18 - 6 * i)));
        out.extend(n.to_be_bytes()[1..chunk.len()].iter());
    }
    out
}

/// Everything this file checks, on one connected client.
async fn resources_templates_and_subscriptions(client: &Client) {
    // Typed contents: a text item and a blob item, each with its URI and MIME type.
    let text_uri = "demo://resource/dynamic/text/1";
    let read = client.read_resource(text_uri).await.unwrap();
    assert_eq!(read.len(), 1, "{read:?}");
    assert!(matches!(&read[0], ResourceContent::Text { .. }), "{read:?}");
    assert_eq!((read[0].uri(), read[0].mime_type()), (text_uri, Some("text/plain")));
    let text = read[0].text().unwrap();
    assert!(text.starts_with("Resource 1: This is a plaintext resource created at "), "{text}");

    let blob_uri = "demo://resource/dynamic/blob/2";
    let read = client.read_resource(blob_uri).await.unwrap();
    assert_eq!((read[0].uri(), read[0].mime_type(), read[0].text()), (blob_uri, Some("text/plain"), None));
    let bytes = base64_decode(read[0].blob_base64().unwrap());
    let decoded = String::from_utf8(bytes.clone()).unwrap();
    assert!(decoded.starts_with("Resource 2: This is a base64 blob created at "), "{decoded}");
    // The flattened view, for a model: the blob is a marker with its decoded size.
    assert_eq!(
        client.read_resource_text(blob_uri).await.unwrap(),
        format!("[blob text/plain, {} bytes elided]", bytes.len())
    );

    // Templates, listed.
    let templates = client.list_resource_templates(false).await.unwrap();
    let text_template = templates.iter().find(|t| t.name == "Dynamic Text Resource").expect("listed");
    assert_eq!(text_template.uri_template, "demo://resource/dynamic/text/{resourceId}");
    assert_eq!(text_template.mime_type.as_deref(), Some("text/plain"));
    let blob_template = templates.iter().find(|t| t.name == "Dynamic Blob Resource").expect("listed");
    assert_eq!(blob_template.uri_template, "demo://resource/dynamic/blob/{resourceId}");

    // A subscription: server-everything sends updates once `toggle-subscriber-updates`
    // is on (at once, then every 5 s).
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let on_update: UpdateFn = Arc::new(move |uri: &str| {
        let _ = tx.send(uri.to_owned());
    });
    client.subscribe(text_uri, on_update).await.unwrap();
    let toggled = client.call_tool("toggle-subscriber-updates", json!({}), CallOptions::new()).await.unwrap();
    assert!(!toggled.is_error, "{toggled:?}");
    let updated = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.expect("an update").unwrap();
    assert_eq!(updated, text_uri);
    client.unsubscribe(text_uri).await.unwrap();
    // Stop the server's updates again.
    client.call_tool("toggle-subscriber-updates", json!({}), CallOptions::new()).await.unwrap();

    // An adopted tool keeps the structured result the server sent, beside the sealed text.
    let d = client.adopt(AdoptOptions::default().prefix("ev_")).await.unwrap();
    let weather = d.get("get-structured-content").unwrap();
    let out = weather.invoke(json!({"location": "Chicago"})).await.unwrap();
    assert_eq!(
        out.structured,
        Some(json!({"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}))
    );
    let opened = UntrustedText::from_output(&out).unwrap();
    assert_eq!((opened.server(), opened.tool()), ("ev", "ev_get-structured-content"));
    assert_eq!(opened.text(), r#"{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}"#);
}

#[tokio::test]
async fn server_everythings_resources_over_stdio() {
    let client = Client::connect(everything(), ClientOptions::new("ev")).await.unwrap();
    resources_templates_and_subscriptions(&client).await;
    client.close().await;
}

/// A child killed when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn server_everythings_resources_over_http() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(peer("TOOLWIRE_NODE22"))
        .arg(peer("TOOLWIRE_SERVER_EVERYTHING"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _server = Server(child);
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(20), "server-everything did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let client = Client::connect(HttpServer::new(url), ClientOptions::new("ev")).await.unwrap();
    resources_templates_and_subscriptions(&client).await;
    client.close().await;
}
