//! Reading the optional debug database: the location table (a lowered union
//! vector, see the schema) and the per-function source maps.

use std::sync::Arc;

use flatbuffers::{Verifiable, Verifier, VerifierOptions};
use iree_base::{bail, Result, Status, StatusCode};

use super::schema::{
    CallSiteLocDef, DebugDatabaseDef, FileLineColLocDef, FusedLocDef, LocationTypeDef, NameLocDef,
};
use super::{FunctionSourceMap, SourceLocation};

/// Longest text one location renders to; longer ones end in `...`.
const MAX_LOCATION_TEXT: usize = 4096;
/// Deepest nesting of locations that is followed.
const MAX_LOCATION_DEPTH: usize = 32;

/// One verified entry of the location table, typed by its tag.
#[derive(Clone, Copy)]
pub enum Location<'a> {
    /// Tag `NONE` (or one this schema does not know).
    None,
    /// A call site: callee and caller locations.
    CallSite(CallSiteLocDef<'a>),
    /// A file, line and column.
    FileLineCol(FileLineColLocDef<'a>),
    /// Several locations with optional metadata.
    Fused(FusedLocDef<'a>),
    /// A named location with an optional child.
    Name(NameLocDef<'a>),
}

fn verify_as<T: Verifiable>(
    verifier: &mut Verifier<'_, '_>,
    loc: usize,
    index: usize,
) -> Result<()> {
    T::run_verifier(verifier, loc).map_err(|e| {
        Status::new(
            StatusCode::InvalidArgument,
            format!("FlatBuffer verification failed: debug_database.location_table[{index}]: {e}"),
        )
    })
}

/// Verifies every location table entry as the table type its tag names and
/// returns the typed entries.
pub(super) fn read_location_table<'a>(
    db: &DebugDatabaseDef<'a>,
    opts: &VerifierOptions,
) -> Result<Vec<Location<'a>>> {
    let (types, values) = match (db.location_table_type(), db.location_table()) {
        (None, _) | (_, None) => return Ok(Vec::new()),
        (Some(t), Some(v)) if t.len() == v.len() => (t, v),
        (t, v) => bail!(
            InvalidArgument,
            "debug_database location table has {} type tags but {} entries",
            t.map_or(0, |t| t.len()),
            v.map_or(0, |v| v.len())
        ),
    };
    // One verifier for all entries, so that its limits on tables and on
    // apparent size bound the total work even when entries share objects.
    let mut verifier = Verifier::new(opts, db._tab.buf());
    let mut table = Vec::with_capacity(values.len());
    for (index, (tag, entry)) in types.iter().zip(values.iter()).enumerate() {
        let loc = entry._tab.loc();
        // SAFETY (all `init_from_table` calls below): `entry` was verified as
        // a table by the root verifier, and `verify_as` has just verified it
        // as the concrete table type the tag names, which is what the
        // generated accessors require of the underlying `Table`.
        let location = match tag {
            LocationTypeDef::CallSiteLocDef => {
                verify_as::<CallSiteLocDef>(&mut verifier, loc, index)?;
                // SAFETY: see above.
                Location::CallSite(unsafe { CallSiteLocDef::init_from_table(entry._tab) })
            }
            LocationTypeDef::FileLineColLocDef => {
                verify_as::<FileLineColLocDef>(&mut verifier, loc, index)?;
                // SAFETY: see above.
                Location::FileLineCol(unsafe { FileLineColLocDef::init_from_table(entry._tab) })
            }
            LocationTypeDef::FusedLocDef => {
                verify_as::<FusedLocDef>(&mut verifier, loc, index)?;
                // SAFETY: see above.
                Location::Fused(unsafe { FusedLocDef::init_from_table(entry._tab) })
            }
            LocationTypeDef::NameLocDef => {
                verify_as::<NameLocDef>(&mut verifier, loc, index)?;
                // SAFETY: see above.
                Location::Name(unsafe { NameLocDef::init_from_table(entry._tab) })
            }
            _ => Location::None,
        };
        table.push(location);
    }
    Ok(table)
}

/// Renders locations as text the way upstream formats source locations in
/// backtraces, with bounded depth and size so that cyclic or deeply shared
/// tables cannot blow up.
struct Renderer<'t, 'a> {
    table: &'t [Location<'a>],
    out: String,
}

impl Renderer<'_, '_> {
    fn push(&mut self, text: &str) -> bool {
        self.push_parts(&[text])
    }

    /// Appends all of `parts` if they fit, else marks the text as cut off.
    /// The size is checked before anything is copied, so a huge string in
    /// the file costs nothing however often it is referenced.
    fn push_parts(&mut self, parts: &[&str]) -> bool {
        let len = parts.iter().fold(0usize, |n, p| n.saturating_add(p.len()));
        if self.out.len().saturating_add(len) > MAX_LOCATION_TEXT {
            if !self.out.ends_with("...") {
                self.out.push_str("...");
            }
            return false;
        }
        parts.iter().for_each(|p| self.out.push_str(p));
        true
    }

    /// Appends location `ordinal`; returns false once the text is full.
    fn render(&mut self, ordinal: i32, depth: usize) -> bool {
        if depth > MAX_LOCATION_DEPTH {
            return self.push("...");
        }
        let location = usize::try_from(ordinal)
            .ok()
            .and_then(|i| self.table.get(i))
            .copied();
        match location {
            None | Some(Location::None) => self.push("[unknown]"),
            Some(Location::CallSite(loc)) => {
                // Callee first, then the caller (a stack trace reads upward).
                self.render(loc.callee(), depth + 1)
                    && self.push("\n      at ")
                    && self.render(loc.caller(), depth + 1)
            }
            Some(Location::FileLineCol(loc)) => {
                let (line, column) = (loc.line().to_string(), loc.column().to_string());
                self.push_parts(&[loc.filename().unwrap_or(""), ":", &line, ":", &column])
            }
            Some(Location::Fused(loc)) => {
                if let Some(metadata) = loc.metadata() {
                    if !self.push_parts(&["<", metadata, ">"]) {
                        return false;
                    }
                }
                if !self.push("[\n") {
                    return false;
                }
                if let Some(children) = loc.locations() {
                    for (i, child) in children.iter().enumerate() {
                        if !self.push(if i == 0 { "    " } else { ",\n    " })
                            || !self.render(child, depth + 1)
                        {
                            return false;
                        }
                    }
                }
                self.push("\n  ]")
            }
            Some(Location::Name(loc)) => {
                if !self.push_parts(&["\"", loc.name().unwrap_or(""), "\""]) {
                    return false;
                }
                // A child location of 0 is a real reference, so presence is
                // told by the vtable, not by the value.
                let has_child = loc._tab.vtable().get(NameLocDef::VT_CHILD_LOCATION) != 0;
                if has_child {
                    self.push("(") && self.render(loc.child_location(), depth + 1) && self.push(")")
                } else {
                    true
                }
            }
        }
    }
}

/// Reads the source maps of `db`. Each location is rendered once, and all
/// renderings together are capped at `text_budget` bytes (later ones become
/// `[truncated]`) so that a small crafted file cannot make huge output.
pub(crate) fn read_source_maps(
    db: &DebugDatabaseDef<'_>,
    opts: &VerifierOptions,
    text_budget: usize,
) -> Result<Vec<FunctionSourceMap>> {
    let Some(functions) = db.functions() else {
        return Ok(Vec::new());
    };
    let table = read_location_table(db, opts)?;
    let mut rendered: Vec<Option<Arc<str>>> = vec![None; table.len()];
    let mut budget = text_budget;
    let truncated: Arc<str> = Arc::from("[truncated]");

    let mut maps = Vec::with_capacity(functions.len());
    for (f, function) in functions.iter().enumerate() {
        let local_name = function.local_name().unwrap_or("").to_owned();
        let mut locations = Vec::new();
        if let Some(entries) = function.locations() {
            locations.reserve(entries.len());
            for (l, entry) in entries.iter().enumerate() {
                let Ok(bytecode_offset) = u32::try_from(entry.bytecode_offset()) else {
                    bail!(
                        InvalidArgument,
                        "debug_database.functions[{f}].locations[{l}] has a negative bytecode offset ({})",
                        entry.bytecode_offset()
                    );
                };
                let index = entry.location();
                let Some(slot) = usize::try_from(index)
                    .ok()
                    .and_then(|i| rendered.get_mut(i))
                else {
                    bail!(
                        InvalidArgument,
                        "debug_database.functions[{f}].locations[{l}] references location {index} \
                         but the location table has {} entries",
                        table.len()
                    );
                };
                let text = match slot {
                    Some(text) => text.clone(),
                    None if budget == 0 => truncated.clone(),
                    None => {
                        let mut renderer = Renderer {
                            table: &table,
                            out: String::new(),
                        };
                        renderer.render(index, 0);
                        budget = budget.saturating_sub(renderer.out.len().max(1));
                        let text: Arc<str> = Arc::from(renderer.out);
                        *slot = Some(text.clone());
                        text
                    }
                };
                locations.push(SourceLocation {
                    bytecode_offset,
                    location: text,
                });
            }
        }
        maps.push(FunctionSourceMap {
            local_name,
            locations,
        });
    }
    Ok(maps)
}
