//! Where this browser's user has sent a key, and the keys they asked it to remember, both bound to
//! a provider **and** an origin (`execbench_providers::KeyScope`). A file can name any address;
//! only these scopes get a key without the user confirming first, and a remembered key is filled
//! only for the scope it was used with.

use execbench_providers::{KeyScope, TrustedEndpoints, presets};

use super::storage;

/// The scopes typed or confirmed here, as JSON (`TrustedEndpoints`; no key in it).
const TRUSTED: &str = "execbench.trusted-endpoints";
/// A remembered key's entry: this prefix and `KeyScope::storage_name`.
const KEY_PREFIX: &str = "execbench.api-key.";
/// Before keys were bound to an origin, an entry per provider id; the form's kept settings said
/// which address it was last used with.
const LEGACY_SETTINGS: &str = "execbench.api-settings";

pub fn trusted() -> TrustedEndpoints {
    storage::get(TRUSTED).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

/// Records that the user typed or confirmed `scope` (a key may go there from now on).
pub fn trust(scope: KeyScope) {
    let mut all = trusted();
    if !all.contains(&scope) {
        all.trust(scope);
        let _ = storage::set(TRUSTED, &serde_json::to_string(&all).unwrap_or_default());
    }
}

pub fn remembered_key(scope: &KeyScope) -> Option<String> {
    storage::get(&format!("{KEY_PREFIX}{}", scope.storage_name())).filter(|k| !k.trim().is_empty())
}

pub fn remember_key(scope: &KeyScope, key: &str) {
    let _ = storage::set(&format!("{KEY_PREFIX}{}", scope.storage_name()), key);
}

pub fn forget_key(scope: &KeyScope) {
    storage::remove(&format!("{KEY_PREFIX}{}", scope.storage_name()));
}

/// Moves keys remembered per provider id (older versions) to the provider and origin the form
/// last used with that provider; a key whose address is unknown is dropped, never guessed.
pub fn migrate_legacy_keys() {
    #[derive(serde::Deserialize, Default)]
    struct Kept {
        provider: String,
        base_url: String,
    }
    let kept: Kept = storage::get(LEGACY_SETTINGS).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
    for preset in presets() {
        let legacy = format!("{KEY_PREFIX}{}", preset.id);
        let Some(key) = storage::get(&legacy) else { continue };
        storage::remove(&legacy);
        if kept.provider == preset.id
            && let Ok(scope) = KeyScope::of(preset.id, &kept.base_url)
        {
            remember_key(&scope, &key);
            trust(scope);
        }
    }
}
