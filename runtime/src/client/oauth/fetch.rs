//! The OAuth client's own HTTP exchanges (metadata, registration, tokens): one request, one
//! JSON answer, no redirects followed (RFC 9728 §3.1 and RFC 8414 §3.1 forbid nothing, but a
//! metadata URL that redirects elsewhere is not the document the client asked for).

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use crate::client::http::connector;
use crate::client::options::HttpServer;

/// The most of an answer read (a metadata document or a token response is a few KiB).
const MAX_BODY: usize = 1 << 20;

/// An HTTP(S) client for the authorization exchanges.
#[derive(Clone)]
pub(crate) struct Fetch {
    client: HyperClient<HttpsConnector<HttpConnector>, Full<Bytes>>,
    timeout: Duration,
}

/// A JSON answer and its status.
pub(crate) struct Answer {
    pub(crate) status: u16,
    /// The body as JSON (`Null` when it was not JSON).
    pub(crate) json: Value,
    /// Whether the status was 200 or 201.
    pub(crate) ok: bool,
    /// The `DPoP-Nonce` header (RFC 9449 §8), if any.
    pub(crate) dpop_nonce: Option<String>,
}

impl Fetch {
    /// A client trusting Mozilla's roots, with `timeout` per exchange.
    pub(crate) fn new(timeout: Duration) -> Result<Fetch, String> {
        let connector =
            connector(&HttpServer::new("https://authorization.invalid")).map_err(|(problem, _)| problem)?;
        let client = HyperClient::builder(TokioExecutor::new()).pool_max_idle_per_host(0).build(connector);
        Ok(Fetch { client, timeout })
    }

    /// `GET url`; `Ok(None)` for any answer but a 200 with a JSON object.
    pub(crate) async fn get_json(&self, url: &str) -> Result<Option<Value>, String> {
        let req = Request::builder()
            .method(Method::GET)
            .uri(url)
            .header(ACCEPT, "application/json")
            .body(Full::new(Bytes::new()))
            .map_err(|_| format!("'{url}' is not a URL this client can fetch"))?;
        let answer = self.send(url, req).await?;
        Ok((answer.status == 200 && answer.json.is_object()).then_some(answer.json))
    }

    /// `POST url` with a form body (`application/x-www-form-urlencoded`) and, if given, an
    /// `Authorization` header.
    pub(crate) async fn post_form(
        &self,
        url: &str,
        form: String,
        authorization: Option<&str>,
        dpop: Option<&str>,
    ) -> Result<Answer, String> {
        let mut req = Request::builder()
            .method(Method::POST)
            .uri(url)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(auth) = authorization {
            let value = HeaderValue::from_str(auth)
                .map_err(|_| "the client credentials are not valid in a header".to_owned())?;
            req = req.header(AUTHORIZATION, value);
        }
        if let Some(proof) = dpop {
            req = req.header("dpop", proof);
        }
        let req = req
            .body(Full::new(Bytes::from(form)))
            .map_err(|_| format!("'{url}' is not a URL this client can post to"))?;
        self.send(url, req).await
    }

    /// `POST url` with a JSON body.
    pub(crate) async fn post_json(&self, url: &str, body: &Value) -> Result<Answer, String> {
        let req = Request::builder()
            .method(Method::POST)
            .uri(url)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
            .map_err(|_| format!("'{url}' is not a URL this client can post to"))?;
        self.send(url, req).await
    }

    async fn send(&self, url: &str, req: Request<Full<Bytes>>) -> Result<Answer, String> {
        let exchange = async {
            let resp = self.client.request(req).await.map_err(|e| format!("could not reach {url}: {e}"))?;
            let status = resp.status();
            let dpop_nonce =
                resp.headers().get("dpop-nonce").and_then(|v| v.to_str().ok()).map(str::to_owned);
            let body = http_body_util::Limited::new(resp.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|_| format!("{url} broke off its answer, or sent more than 1 MiB"))?
                .to_bytes();
            let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
            Ok(Answer {
                status: status.as_u16(),
                json,
                ok: status == StatusCode::OK || status == StatusCode::CREATED,
                dpop_nonce,
            })
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Ok(answer) => answer,
            Err(_) => Err(format!("{url} did not answer within {}s", crate::tool::fmt_secs(self.timeout))),
        }
    }
}
