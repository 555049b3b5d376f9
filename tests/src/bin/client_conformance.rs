//! toolwire's client as the conformance suite's client under test:
//! `conformance client --command "client_conformance" --scenario S` runs this with the
//! scenario's URL as the last argument, the scenario in `MCP_CONFORMANCE_SCENARIO` and the
//! protocol version in `MCP_CONFORMANCE_PROTOCOL_VERSION` (2026-07-28 speaks the modern
//! era, anything else the legacy handshake).
//!
//! It lists the tools and calls each once, answering what the server asks with typed
//! handlers: an elicitation is accepted with its form's defaults, a sampling request is
//! answered with a fixed text, roots are one directory. On 2026-07-28 the server's
//! `input_required` rounds are answered through the same handlers.
//!
//! `json-schema-2020-12-preservation` asks the client to hand the schema it holds for
//! `json_schema_2020_12_tool` back as the `schema` argument of `json_schema_echo`: it is given
//! the adopted tool's input schema, the one a host and its model see, so the scenario checks
//! adoption as well as listing.
//!
//! Every connection carries toolwire's OAuth client (`toolwire::client::oauth`): the `auth/*`
//! scenarios answer the first request with 401. The person's step is played headlessly: the
//! authorization URL is fetched without following its redirect, and the `Location` it
//! redirects to is the answer (the suite's authorization server consents at once). The
//! scenario's context (`MCP_CONFORMANCE_CONTEXT`, JSON) gives the pre-registered client and
//! the client credentials, the workload's identity token and the enterprise identity
//! provider's; the Client ID Metadata Document
//! URL is the one the suite expects.
//!
//! A scenario whose context lists `toolCalls` (`http-custom-headers`) has those tools called
//! with those arguments, a `null` argument left out: the adopted tool's own schema check
//! refuses `null` for a `boolean`, and an absent value is what the spec's "omit the header
//! when the value is null or not provided" then checks. The tools the client refused at
//! adoption (`http-invalid-tool-headers`) are printed on stderr with their reasons.
//!
//! The Skills extension's scenarios (`sep-2640-client-*`) list the server's skills and load
//! each (its `SKILL.md`, verified, then its other files), except `sep-2640-client-no-prefetch`,
//! which only lists: nothing is fetched ahead of need.
//!
//! A failure prints the client's error on stderr and exits 1.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolwire::client::oauth::{AuthorizationRequest, OAuth};
use toolwire::client::{
    AdoptOptions, Client, ClientOptions, CreateMessageResult, Elicited, EraMode, HttpServer, Root,
};
use toolwire::skills::SkillResources;
use toolwire::{Context, Tool};

/// The Client ID Metadata Document URL the suite's `auth/basic-cimd` expects.
const CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";

#[tokio::main(flavor = "current_thread")]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

/// The OAuth client for `scenario`, from its context.
fn oauth(scenario: &str) -> OAuth {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_default();
    let field = |name: &str| context.get(name).and_then(Value::as_str).map(str::to_owned);
    match scenario {
        "auth/client-credentials-basic" => OAuth::client_credentials(
            field("client_id").unwrap_or_default(),
            field("client_secret").unwrap_or_default(),
        ),
        "auth/client-credentials-jwt" => OAuth::client_credentials_jwt(
            field("client_id").unwrap_or_default(),
            field("private_key_pem").unwrap_or_default(),
            field("signing_algorithm").unwrap_or_else(|| "ES256".into()),
        ),
        "auth/enterprise-managed-authorization" => {
            let id_token = field("idp_id_token").unwrap_or_default();
            OAuth::enterprise_managed(
                field("client_id").unwrap_or_default(),
                field("client_secret").unwrap_or_default(),
                field("idp_token_endpoint").unwrap_or_default(),
                field("idp_client_id").unwrap_or_default(),
                move || Ok(id_token.clone()),
            )
        }
        "auth/wif-jwt-bearer" => {
            let jwt = field("valid_jwt").unwrap_or_default();
            OAuth::workload_identity(field("client_id").unwrap_or_default(), move || Ok(jwt.clone()))
        }
        _ => {
            let mut oauth = OAuth::new("toolwire-conformance")
                .redirect_uri("http://localhost:3000/callback")
                .client_metadata_url(CIMD_URL)
                .on_authorize(consent);
            if let Some(id) = field("client_id") {
                oauth = oauth.pre_registered(id, field("client_secret"), None);
            }
            oauth
        }
    }
}

/// The person's step, headless: fetch the authorization URL and answer where it redirects.
async fn consent(request: AuthorizationRequest) -> Result<String, String> {
    let rest = request.url.strip_prefix("http://").ok_or("the authorization URL is not http://")?;
    let (host, target) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = tokio::net::TcpStream::connect(host).await.map_err(|e| e.to_string())?;
    let head = format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.map_err(|e| e.to_string())?;
    answer
        .lines()
        .take_while(|l| !l.is_empty())
        .find_map(|l| l.strip_prefix("Location: ").or_else(|| l.strip_prefix("location: ")))
        .map(str::to_owned)
        .ok_or_else(|| {
            format!(
                "the authorization endpoint did not redirect: {}",
                answer.lines().next().unwrap_or_default()
            )
        })
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().next_back().ok_or("usage: client_conformance URL")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let era = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2026-07-28") => EraMode::Modern,
        _ => EraMode::Legacy,
    };
    let options = ClientOptions::new("conformance")
        .era(era)
        .on_elicit(|request| async move { Ok(Elicited::accept(request.defaults())) })
        .on_sample(|_| async { Ok(CreateMessageResult::text("conformance-model", "ok")) })
        .roots(vec![Root::new("file:///tmp/conformance", Some("conformance".into()))]);
    let server = HttpServer::new(url).authorizer(Arc::new(oauth(&scenario)));
    let client = Client::connect(server, options).await?;
    if scenario.starts_with("sep-2640-") {
        return skills(&client, &scenario).await;
    }
    let listed = client.list_tools(false).await?;
    let discovery = client.adopt(AdoptOptions::default().prefix("")).await?;
    for rejected in discovery.rejected() {
        eprintln!("not adopted: {rejected}");
    }
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_default();
    let given = |name: &str| {
        let calls = context.get("toolCalls")?.as_array()?;
        let call = calls.iter().find(|c| c.get("name").and_then(Value::as_str) == Some(name))?;
        let mut args = call.get("arguments")?.as_object()?.clone();
        args.retain(|_, v| !v.is_null());
        Some(Value::Object(args))
    };
    for tool in discovery.tools() {
        let name = tool.info().name();
        if let Some(args) = given(name) {
            match tool.call_json(args, &Context::new()).await {
                Ok(out) => println!("{name}: {}", out.joined_text()),
                Err(e) => println!("{name}: {e}"),
            }
            continue;
        }
        let args = match name {
            "add_numbers" => json!({"a": 2, "b": 3}),
            "json_schema_echo" => {
                let focal = discovery.get("json_schema_2020_12_tool")?;
                json!({"schema": focal.info().input_schema().value()})
            }
            _ if scenario == "initialize" => continue,
            _ => {
                listed.iter().find(|t| t.name == name).map_or_else(|| json!({}), |t| sample(&t.input_schema))
            }
        };
        match tool.call_json(args, &Context::new()).await {
            Ok(out) => println!("{}: {}", tool.info().name(), out.joined_text()),
            Err(e) if scenario.starts_with("auth/") => return Err(e.into()),
            Err(e) => println!("{}: {e}", tool.info().name()),
        }
    }
    client.close().await;
    Ok(())
}

/// The Skills extension's client scenarios (SEP-2640): list the skills, fetching nothing;
/// then, but for `sep-2640-client-no-prefetch` (where no skill is loaded), load each one: its
/// `SKILL.md` verified against the entry first, and only if it passes, its other files. A
/// refused skill is left unread past the refusal, and the first refusal is the binary's
/// error (on stderr, exit 1: the scenarios allow a client to fail, and show what it said).
async fn skills(client: &Client, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    let skills = client.list_skills().await?;
    for skill in &skills {
        println!("skill {}: {}", skill.uri, skill.frontmatter["description"]);
    }
    let mut refused = None;
    if scenario != "sep-2640-client-no-prefetch" {
        for skill in &skills {
            match client.load_skill(skill).await {
                Ok(read) => println!("loaded {}: {} bytes", read.uri, read.bytes.len()),
                Err(e) => {
                    refused.get_or_insert(e);
                    continue;
                }
            }
            let SkillResources::Files(files) = &skill.resources else { continue };
            for file in files.iter().filter(|f| f.uri != skill.uri) {
                match client.read_skill_file(skill, &file.uri).await {
                    Ok(read) => println!("read {}: {} bytes", read.uri, read.bytes.len()),
                    Err(e) => {
                        refused.get_or_insert(e);
                    }
                }
            }
        }
    }
    client.close().await;
    refused.map_or(Ok(()), |e| Err(e.into()))
}

/// Arguments a schema accepts: each required property given a value of its type.
fn sample(schema: &Value) -> Value {
    let mut args = Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        let prop = props.and_then(|p| p.get(name)).cloned().unwrap_or(Value::Null);
        let value = match prop.get("type").and_then(Value::as_str) {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("conformance"),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}
