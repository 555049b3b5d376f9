//! The tour's resources and prompt: one fixed resource, one template whose variable
//! completes, and one prompt. The README's "The tour" section shows this file's code,
//! and `tests/tests/example_golden.rs` checks that it still does, byte for byte.

// tour:begin
use serde_json::{Value, json};
use toolwire::complete::{CompletionRequest, prefix_matches};
use toolwire::prompt::PromptRegistry;
use toolwire::resource::ResourceRegistry;
use toolwire::{Json, prompt, prompts, resource, resources};

/// The engine's settings.
#[resource(uri = "config://engine", mime_type = "application/json", title = "Engine settings")]
fn settings() -> Json<Value> {
    Json(json!({"region": "eu-west", "retries": 3}))
}

/// The last report of one check.
#[resource(
    template = "checks://{name}/report",
    mime_type = "text/plain",
    icon = "https://example.com/report.svg",
    complete(name = check_names)
)]
fn check_report(name: String) -> String {
    format!("{name}: 12 of 12 passed")
}

/// The checks a report exists for, by what was typed so far.
fn check_names(request: CompletionRequest) -> Vec<String> {
    prefix_matches(&["lint", "test", "typecheck"], &request.value)
}

/// Ask for a plan before a deploy.
#[prompt(title = "Plan a deploy")]
fn plan_deploy(
    /// The environment to deploy to.
    target: String,
) -> String {
    format!("Plan a deploy of the current build to {target}; list the checks to run first.")
}

/// The tour's resources: the fixed one and the template.
pub fn tour_resources() -> ResourceRegistry {
    resources![settings, check_report].expect("URIs are unique")
}

/// The tour's prompts.
pub fn tour_prompts() -> PromptRegistry {
    prompts![plan_deploy].expect("prompt names are unique")
}
// tour:end
