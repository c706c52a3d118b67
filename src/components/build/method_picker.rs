//! The recipe's 69 methods as checkboxes, grouped by type, with all/none per group.

use std::collections::BTreeSet;

use execbench_recipe::methods::{DICT_METHODS, LIST_METHODS, STR_METHODS};
use leptos::prelude::*;

/// The methods of one type, as `type.name`.
pub fn group(type_name: &str) -> Vec<String> {
    let names: &[&str] = match type_name {
        "str" => &STR_METHODS,
        "dict" => &DICT_METHODS,
        _ => &LIST_METHODS,
    };
    names.iter().map(|n| format!("{type_name}.{n}")).collect()
}

#[component]
pub fn MethodPicker(selected: RwSignal<BTreeSet<String>>) -> impl IntoView {
    let groups = ["str", "dict", "list"];
    view! {
        <div class="method-picker" data-testid="build-methods">
            <p class="muted" data-testid="build-method-count">{move || format!("{} of 69 methods chosen", selected.with(BTreeSet::len))}</p>
            {groups.into_iter().map(|type_name| {
                let methods = group(type_name);
                let all = methods.clone();
                let none = methods.clone();
                view! {
                    <fieldset class="method-group">
                        <legend>{format!("{type_name} ({})", methods.len())}
                            <button type="button" class="link-button" data-testid=format!("build-all-{type_name}")
                                on:click=move |_| selected.update(|s| s.extend(all.iter().cloned()))>"all"</button>
                            <button type="button" class="link-button" data-testid=format!("build-none-{type_name}")
                                on:click=move |_| selected.update(|s| none.iter().for_each(|m| { s.remove(m); }))>"none"</button>
                        </legend>
                        {methods.into_iter().map(|method| {
                            let name = method.split_once('.').map(|(_, n)| n.to_string()).unwrap_or_default();
                            let m1 = method.clone();
                            let m2 = method.clone();
                            view! {
                                <label class="method">
                                    <input type="checkbox" data-testid=format!("build-method-{method}")
                                        prop:checked=move || selected.with(|s| s.contains(&m1))
                                        on:change=move |ev| {
                                            let on = event_target_checked(&ev);
                                            selected.update(|s| { if on { s.insert(m2.clone()); } else { s.remove(&m2); } });
                                        } />
                                    {name}
                                </label>
                            }
                        }).collect_view()}
                    </fieldset>
                }
            }).collect_view()}
        </div>
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_groups_make_the_recipe_s_69() {
        let all: Vec<String> = ["str", "dict", "list"].iter().flat_map(|t| super::group(t)).collect();
        assert_eq!(all.len(), 69);
        assert_eq!(all, execbench_recipe::methods::all_methods());
    }
}
