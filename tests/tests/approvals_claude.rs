//! The real Claude Code CLI (2.1.332) uses our `ApprovalServer` as its
//! `--permission-prompt-tool`.
//!
//! Offline, with a fake Messages API on loopback (agent_cli_support), the "model" asks for
//! three of our engine's tools at once. None is pre-approved, so the CLI asks
//! `mcp__approvals__approve` about each, and:
//!
//! - `echo` is allowed by the asker with an edited input: the edited call reaches our engine;
//! - `deploy` is denied by the asker: the CLI never sends it, and the model reads the
//!   asker's message;
//! - `add` is on `auto_allow`: allowed without asking, and it reaches our engine.
//!
//! The decisions are recorded with the CLI's `tool_use_id`s and the right sources, and the
//! engine saw exactly the two allowed calls.
//!
//! A second test shows why `claude_cli_args` carries `--setting-sources=`: with every
//! settings file allowing `deploy`, the CLI without it runs `deploy` and never asks us; with
//! it, our prompt tool is asked and its deny holds. Both servers run in this test's process, over
//! loopback HTTP behind their tokens. Needs `bash tests/peers/agent-clis/setup.sh`; fails
//! (never skips) without it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::Server;
use toolwire::ServerOptions;
use toolwire::approvals::{Answer, ApprovalServer, DecisionSource, asker_fn};
use toolwire::spec::SpecOptions;
use toolwire::{McpServerSpec, serve_registry, tool, tools};

#[path = "agent_cli_support/mod.rs"]
mod agent_cli_support;
use agent_cli_support::{FakeModel, TempHome, claude_run, claude_run_in};

/// Echo the text back.
#[tool(side_effecting)]
fn echo(
    /// What to echo.
    text: String,
) -> String {
    text
}

/// Deploy the current build to the named target environment.
#[tool(side_effecting, requires_approval, caps = ["egress"])]
fn deploy(
    /// Where to deploy.
    target: String,
) -> String {
    format!("deployed to {target}")
}

/// Add two integers.
#[tool(side_effecting)]
fn add(
    /// The first.
    a: i64,
    /// The second.
    b: i64,
) -> String {
    (a + b).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_asks_our_approval_server_and_obeys_it() {
    let mut engine = serve_registry(
        Server::new(tools![echo, deploy, add].unwrap(), ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http(),
    )
    .unwrap();
    engine.start().unwrap();

    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let approvals = ApprovalServer::builder(asker_fn(move |request| {
        counter.fetch_add(1, Ordering::SeqCst);
        async move {
            Ok(match request.tool_name.as_str() {
                "mcp__engine__echo" => {
                    let text = request.input["text"].as_str().unwrap_or_default();
                    Answer::allow_with(json!({"text": format!("{text} (approved)")}))
                }
                _ => Answer::deny("deploy needs a human on call"),
            })
        }
    }))
    .auto_allow(["mcp__engine__add"])
    // Generous: a slow CI machine must not turn an answer into a timeout.
    .timeout(Some(Duration::from_secs(60)))
    .build();
    let mut prompts = approvals.serve("approvals").unwrap();
    prompts.start().unwrap();

    let model = FakeModel::start(vec![
        ("mcp__engine__echo".to_owned(), json!({"text": "hi from claude"})),
        ("mcp__engine__deploy".to_owned(), json!({"target": "prod"})),
        ("mcp__engine__add".to_owned(), json!({"a": 2, "b": 3})),
    ]);
    // The prompt, both servers' --mcp-config (a list), --strict-mcp-config, no settings, and
    // the prompt tool; no --allowedTools, so every call is asked about.
    let mut args = vec!["hi".to_owned(), "--mcp-config".to_owned()];
    args.push(engine.config_path().display().to_string());
    args.extend(approvals.claude_cli_args(&prompts).into_iter().skip(1));
    assert_eq!(
        args[4..],
        [
            "--strict-mcp-config".to_owned(),
            "--setting-sources=".to_owned(),
            "--permission-prompt-tool".to_owned(),
            "mcp__approvals__approve".to_owned()
        ]
    );
    let env = vec![
        ("ANTHROPIC_BASE_URL", model.url.clone()),
        ("ANTHROPIC_API_KEY", "sk-ant-dummy".to_owned()),
        ("ENABLE_TOOL_SEARCH", "false".to_owned()),
    ];
    let lines = tokio::task::spawn_blocking(move || claude_run(&args, &env)).await.unwrap();

    let init = &lines[0];
    let mut servers: Vec<_> = init["mcp_servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].clone(), s["status"].clone()))
        .collect();
    servers.sort_by_key(|s| s.0.to_string());
    assert_eq!(
        servers,
        [(json!("approvals"), json!("connected")), (json!("engine"), json!("connected"))],
        "{init}"
    );

    let results: BTreeMap<String, Value> = lines
        .iter()
        .filter(|l| l["type"] == "user")
        .filter_map(|l| l["message"]["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| (b["tool_use_id"].as_str().unwrap().to_owned(), b.clone()))
        .collect();
    let text_of = |id: &str| -> String {
        let content =
            &results.get(id).unwrap_or_else(|| panic!("no tool_result for {id}: {lines:#?}"))["content"];
        match content {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => {
                blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n")
            }
            other => other.to_string(),
        }
    };
    // Allowed with an edited input: the edit is what ran.
    assert_eq!(text_of("toolu_0"), "hi from claude (approved)", "{lines:#?}");
    assert_ne!(results["toolu_0"]["is_error"], true);
    // Denied: an error result carrying the asker's message.
    assert_eq!(results["toolu_1"]["is_error"], true, "{lines:#?}");
    assert!(text_of("toolu_1").contains("deploy needs a human on call"), "{lines:#?}");
    // Auto-allowed.
    assert_eq!(text_of("toolu_2"), "5", "{lines:#?}");
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result", "{result}");
    let denied: Vec<_> =
        result["permission_denials"].as_array().unwrap().iter().map(|d| &d["tool_name"]).collect();
    assert_eq!(denied, [&json!("mcp__engine__deploy")], "{result}");

    // What the approval server recorded (the CLI may ask in any order).
    let mut decisions = approvals.decisions();
    decisions.sort_by(|a, b| a.tool_use_id.cmp(&b.tool_use_id));
    let got: Vec<_> = decisions
        .iter()
        .map(|d| (d.tool_name.as_str(), d.tool_use_id.as_deref(), d.allowed, d.source, d.asked))
        .collect();
    assert_eq!(
        got,
        [
            ("mcp__engine__echo", Some("toolu_0"), true, DecisionSource::Asker, true),
            ("mcp__engine__deploy", Some("toolu_1"), false, DecisionSource::Asker, true),
            ("mcp__engine__add", Some("toolu_2"), true, DecisionSource::AutoAllow, false),
        ],
        "{decisions:#?}"
    );
    assert_eq!(decisions[0].input, json!({"text": "hi from claude"}), "the asker saw the model's input");
    assert_eq!(decisions[1].reason, "deploy needs a human on call");
    assert_eq!(asked.load(Ordering::SeqCst), 2, "add never reached the asker");
    assert_eq!(prompts.calls_seen(), 3, "one prompt per tool use");
    assert_eq!(engine.calls_seen(), 2, "echo and add reached the engine; deploy never did");
    prompts.stop();
    engine.stop();
}

/// `deploy` in a run where every settings file pre-approves it, asked about by a server
/// that denies everything: `(engine calls, prompts seen, the result line)`.
async fn deploy_under_ambient_allow(
    args_of: impl Fn(&McpServerSpec, &ApprovalServer, &McpServerSpec) -> Vec<String>,
) -> (u64, usize, Value) {
    let mut engine = serve_registry(
        Server::new(tools![deploy].unwrap(), ServerOptions::new("engine", "0.1.0")),
        SpecOptions::http(),
    )
    .unwrap();
    engine.start().unwrap();
    let approvals =
        ApprovalServer::new(asker_fn(|_| async { Ok(Answer::deny("the test asker denies everything")) }));
    let mut prompts = approvals.serve("approvals").unwrap();
    prompts.start().unwrap();
    let model = FakeModel::start(vec![("mcp__engine__deploy".to_owned(), json!({"target": "prod"}))]);

    // The HOME is also the working directory: user, project and local settings all allow it.
    let home = TempHome::new("claude-settings");
    let settings = json!({"permissions": {"allow": ["mcp__engine__deploy"]}}).to_string();
    std::fs::create_dir_all(home.0.join(".claude")).unwrap();
    for file in ["settings.json", "settings.local.json"] {
        std::fs::write(home.0.join(".claude").join(file), &settings).unwrap();
    }
    let mut args = vec!["hi".to_owned()];
    args.extend(args_of(&engine, &approvals, &prompts));
    let env = vec![
        ("ANTHROPIC_BASE_URL", model.url.clone()),
        ("ANTHROPIC_API_KEY", "sk-ant-dummy".to_owned()),
        ("ENABLE_TOOL_SEARCH", "false".to_owned()),
    ];
    let dir = home.0.clone();
    let lines = tokio::task::spawn_blocking(move || claude_run_in(&dir, &args, &env)).await.unwrap();
    let result = lines.last().unwrap().clone();
    assert_eq!(result["type"], "result", "{lines:#?}");
    let seen = (engine.calls_seen(), approvals.prompts_seen(), result);
    prompts.stop();
    engine.stop();
    seen
}

/// `--mcp-config <engine> <approvals>` and the rest of `rest` (an approvals spec's args).
fn with_engine(engine: &McpServerSpec, rest: Vec<String>) -> Vec<String> {
    let mut args = vec!["--mcp-config".to_owned(), engine.config_path().display().to_string()];
    args.extend(rest.into_iter().skip(1));
    args
}

#[tokio::test(flavor = "multi_thread")]
async fn ambient_settings_cannot_settle_a_call_before_our_prompt_tool_sees_it() {
    // Without `--setting-sources=`, the settings' allow rule runs deploy and nobody is asked:
    // the reason the flag is in `claude_cli_args`.
    let (calls, prompts, _) = deploy_under_ambient_allow(|engine, approvals, spec| {
        let mut args = with_engine(engine, spec.claude_cli_args(true));
        args.extend(["--permission-prompt-tool".to_owned(), approvals.permission_prompt_tool(spec)]);
        args
    })
    .await;
    assert_eq!((calls, prompts), (1, 0), "the settings allowed deploy before the prompt tool saw it");

    // With `claude_cli_args`, the prompt tool is asked, and its deny holds.
    let (calls, prompts, result) = deploy_under_ambient_allow(|engine, approvals, spec| {
        with_engine(engine, approvals.claude_cli_args(spec))
    })
    .await;
    assert_eq!((calls, prompts), (0, 1), "{result}");
    assert_eq!(result["permission_denials"][0]["tool_name"], "mcp__engine__deploy", "{result}");
}
