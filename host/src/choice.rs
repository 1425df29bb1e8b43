//! Closed sets of named choices (an algorithm, a backend, a problem format, ...): their names on
//! the command line and in result files, and a line of help each. The app layer turns every
//! [`Choice`] into a command-line option; the layers below name their choices with it.

use crate::error::{Error, Result};

/// A closed set of named choices (algorithm, backend, ...): their names on the command line and
/// in result files, and a line of help each. The app layer turns these into command-line options.
pub trait Choice: Copy + Sized + 'static {
    /// Every choice, in the order the help lists them.
    const ALL: &'static [Self];
    /// The choice's name on the command line and in result files.
    fn name(self) -> &'static str;
    /// What the choice does, in a line.
    fn help(self) -> &'static str;
    /// The choice called `name`, or an error listing the choices.
    fn parse(name: &str) -> Result<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
            Error::usage(format!("`{name}`: expected one of {}", names.join(", ")))
        })
    }
}

/// Implements [`Choice`] for an enum from one table, a line per variant in the order of `ALL`:
/// `Variant: "name" => "help",`.
macro_rules! choices {
    ($ty:ident { $($variant:ident: $name:literal => $help:literal,)* }) => {
        impl $crate::choice::Choice for $ty {
            const ALL: &'static [Self] = &[$($ty::$variant),*];
            fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)*
                }
            }
            fn help(self) -> &'static str {
                match self {
                    $($ty::$variant => $help,)*
                }
            }
        }
    };
}
pub(crate) use choices;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Shade {
        Light,
        Dark,
    }

    choices! {
        Shade {
            Light: "light" => "Bright",
            Dark: "dark" => "Dim",
        }
    }

    #[test]
    fn the_table_gives_each_variant_its_name_and_help_in_order() {
        assert_eq!(Shade::ALL, &[Shade::Light, Shade::Dark]);
        assert_eq!((Shade::Dark.name(), Shade::Dark.help()), ("dark", "Dim"));
        assert_eq!((Shade::Light.name(), Shade::Light.help()), ("light", "Bright"));
        assert_eq!(Shade::parse("dark").unwrap(), Shade::Dark);
        let e = Shade::parse("grey").unwrap_err().to_string();
        assert!(e.contains("`grey`") && e.contains("light, dark"), "{e}");
    }
}
