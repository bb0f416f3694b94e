//! Output of `forge`: JSON diagnostics and counts; the human form is the library's
//! [`report`](bevy_forge_scene::validate::report).

use bevy_forge_scene::validate::Diagnostic;

/// Whether human output should be coloured: only when stdout is a terminal and `NO_COLOR` is
/// not set.
pub fn use_colour() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// One JSON object per diagnostic: `{file, severity, code, message, line, column, entity, path,
/// help}`, absent parts as `null`.
pub fn json_object(file: &str, d: &Diagnostic) -> serde_json::Value {
    serde_json::json!({
        "file": file,
        "severity": d.severity.name(),
        "code": d.code,
        "message": d.message,
        "line": d.line(),
        "column": d.column(),
        "entity": d.entity,
        "path": d.path,
        "help": d.help,
    })
}

/// `1 error`, `2 warnings`, `3 entities`, `2 info` (uncountable): how the command line counts,
/// as the library's messages do.
pub fn count(n: usize, noun: &str) -> String {
    let plural = match noun {
        _ if n == 1 || noun == "info" => noun.to_owned(),
        "entity" => "entities".to_owned(),
        _ => format!("{noun}s"),
    };
    format!("{n} {plural}")
}
