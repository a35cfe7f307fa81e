//! Saved scenarios: named inputs kept in the browser's localStorage.

use alloc::string::String;

use super::{sanitize, Inputs, Notice};

/// localStorage key prefix of saved scenarios (one key per scenario, its
/// value a query string).
pub const SCENARIO_PREFIX: &str = "plan3d.scenario.";
/// Longest scenario name kept.
pub const MAX_SCENARIO_NAME: usize = 60;

/// A saved scenario read back: its name and inputs, or why it was skipped.
pub fn read_scenario(key: &str, value: &str) -> Result<(String, Inputs), Notice> {
    let bad = |reason: &'static str| Notice {
        key: sanitize(key, 40),
        value: sanitize(value, 24),
        reason: reason.into(),
        used: String::new(),
        refused: false,
    };
    let name = key
        .strip_prefix(SCENARIO_PREFIX)
        .ok_or_else(|| bad("not a scenario"))?;
    if name.is_empty()
        || name.chars().count() > MAX_SCENARIO_NAME
        || name.chars().any(char::is_control)
    {
        return Err(bad("saved scenario with an unreadable name, skipped"));
    }
    let (inputs, notices) = Inputs::from_query(value);
    if !notices.is_empty() {
        return Err(bad("saved scenario is corrupt, skipped"));
    }
    Ok((
        String::from(name),
        Inputs {
            embed: None,
            ..inputs
        },
    ))
}
