//! The colour theme: the system's setting (the default) or one the user picked in the top bar.
//! The page's colours live in CSS (`style/main.css`); this only names the choice and how it is
//! stored and shown on `<html>`.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    /// The `localStorage` key; `index.html` reads it too, to set the theme before the app loads.
    pub const STORAGE_KEY: &'static str = "execbench.theme";

    /// How the choice is stored and named in the switch's options.
    pub fn value(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "System theme",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }

    /// Anything unknown (an older or edited value) is the system's theme.
    pub fn from_value(value: &str) -> Theme {
        Theme::ALL.into_iter().find(|t| t.value() == value).unwrap_or_default()
    }

    /// The `data-theme` attribute on `<html>`: none for the system's theme, so that CSS follows
    /// `prefers-color-scheme` (and its changes) by itself.
    pub fn attribute(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            Theme::Light | Theme::Dark => Some(self.value()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_theme_reads_back_from_its_value() {
        for theme in Theme::ALL {
            assert_eq!(Theme::from_value(theme.value()), theme);
        }
    }

    #[test]
    fn unknown_values_mean_the_system_theme() {
        for value in ["", "DARK", "sepia", "null"] {
            assert_eq!(Theme::from_value(value), Theme::System, "{value:?}");
        }
    }

    #[test]
    fn only_an_explicit_choice_sets_the_attribute() {
        assert_eq!(Theme::System.attribute(), None);
        assert_eq!(Theme::Light.attribute(), Some("light"));
        assert_eq!(Theme::Dark.attribute(), Some("dark"));
    }
}
