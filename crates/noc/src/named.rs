//! Enums whose variants are the rows of a table (allocators, topologies) take their names from it.

/// For `$ty`, whose rows are `$table` (of type `$row`, each with a `name` and its variant in field `$field`):
/// `row` (with visibility `$vis`), `name`, `names`, `FromStr` (an unknown name is an error listing every name, calling
/// the enum `$what`) and `Display`.
macro_rules! named_by_table {
    ($ty:ident, $row:ty, $table:path, $field:ident, $what:literal, $vis:vis) => {
        impl $ty {
            $vis fn row(self) -> &'static $row {
                $table.iter().find(|row| row.$field == self).expect("every variant has a table row")
            }

            pub fn name(self) -> &'static str {
                self.row().name
            }

            /// Every name, from the table.
            pub fn names() -> Vec<&'static str> {
                $table.iter().map(|row| row.name).collect()
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match $table.iter().find(|row| row.name == s) {
                    Some(row) => Ok(row.$field),
                    None => Err(format!(concat!("unknown ", $what, " '{}' (expected one of {})"), s, $ty::names().join(", "))),
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use named_by_table;
