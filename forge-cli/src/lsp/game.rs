//! The running game, when `initializationOptions.remote` names it (`"http://127.0.0.1:15702"`,
//! a game with `ForgeRemotePlugin`): asked over Bevy's remote protocol (JSON-RPC over HTTP) with
//! a short timeout. A game that does not answer is left alone for a few seconds, and the server
//! answers as without one: nothing waits on it, nothing fails because of it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one request to the game may take.
const TIMEOUT: Duration = Duration::from_millis(400);
/// How long a game that did not answer is left alone.
const QUIET: Duration = Duration::from_secs(3);

/// The game's remote protocol endpoint.
pub struct Remote {
    url: String,
    agent: ureq::Agent,
    /// When the game last failed to answer.
    failed: Mutex<Option<Instant>>,
}

impl Remote {
    /// The game at `url` (`http://127.0.0.1:15702`).
    pub fn new(url: &str) -> Self {
        Self {
            url: url.trim_end_matches('/').to_owned(),
            agent: ureq::AgentBuilder::new()
                .timeout_connect(TIMEOUT)
                .timeout(TIMEOUT)
                .build(),
            failed: Mutex::new(None),
        }
    }

    /// Calls `method` with `params`: its result, or why not (the game is not running, an
    /// error it answered).
    pub fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        {
            let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
            if failed.is_some_and(|at| at.elapsed() < QUIET) {
                return Err(format!("the game at {} did not answer just now", self.url));
            }
        }
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let response = match self
            .agent
            .post(&format!("{}/", self.url))
            .set("content-type", "application/json")
            .send_string(&body.to_string())
        {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => {
                *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
                return Err(format!("the game at {} does not answer: {e}", self.url));
            }
        };
        let answer: Value = response
            .into_json()
            .map_err(|e| format!("the game's answer to `{method}` is not JSON: {e}"))?;
        if let Some(error) = answer.get("error") {
            return Err(format!(
                "the game answered `{method}` with an error: {}",
                error["message"].as_str().unwrap_or("(no message)")
            ));
        }
        Ok(answer["result"].clone())
    }
}
