//! Reading a schema: the part of the FlatBuffers schema language (`.fbs`)
//! that describes the wire format (namespaces, includes, enums, unions,
//! structs, tables, field ids and the attributes that change what a
//! verifier checks), reduced to what verification needs: for every table,
//! its fields in order with their ids and kinds.
//!
//! Two attributes of ours describe where a schema declares a field
//! differently from how it is written on the wire (the Rust code generator
//! cannot express the real declaration); both must be declared with
//! `attribute "...";` in the schema:
//!
//! - `wire_string` on a `[ubyte]` field: the field is a string on the wire
//!   (NUL-terminated) and is verified as one;
//! - `union_vector` on a table-vector field: the field and the field just
//!   before it (a vector of a `ubyte` enum) are the value and tag vectors of
//!   one union vector whose members are the tables the enum's non-zero
//!   values name.

use std::collections::HashMap;
use std::fmt;

/// A schema that cannot be read (a bug in a committed `.fbs` file, never a
/// property of the data being verified).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError(String);

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SchemaError {}

macro_rules! schema_bail {
    ($($arg:tt)*) => { return Err(SchemaError(format!($($arg)*))) };
}

/// What a verifier must check of one table field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A scalar, enum or struct stored inline in the table.
    Inline { size: u32, align: u32 },
    /// A string.
    String,
    /// A table.
    Table(usize),
    /// A union's value (its tag is the field with the id before).
    Union(usize),
    /// A vector of scalars, enums or structs.
    Vector { size: u32, align: u32 },
    /// A vector of strings.
    StringVector,
    /// A vector of tables.
    TableVector(usize),
    /// A union vector's values (its tags are the field with the id before).
    UnionVector(usize),
    /// A `[ubyte]` holding a nested buffer whose root is this table.
    Nested(usize),
}

/// One field of a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    pub name: String,
    pub id: u16,
    pub required: bool,
    pub kind: Kind,
}

/// A table: its fields in verification order (deprecated ones left out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table {
    pub name: String,
    pub fields: Vec<Field>,
}

/// A union: the member table of each tag (tags absent here are unknown and
/// accepted unverified, as flatcc's verifiers do for forward compatibility).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Union {
    pub members: Vec<(u8, usize)>,
}

impl Union {
    pub fn member(&self, tag: u8) -> Option<usize> {
        self.members
            .iter()
            .find(|(t, _)| *t == tag)
            .map(|&(_, table)| table)
    }
}

/// A schema ready to drive verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    pub(crate) tables: Vec<Table>,
    pub(crate) unions: Vec<Union>,
    pub(crate) root: usize,
    pub(crate) identifier: Option<[u8; 4]>,
}

impl Schema {
    /// Reads a schema from its source files: `files[0]` is the root schema
    /// (its `root_type` and `file_identifier` apply), the others are the
    /// files it includes, found by their names (the last path component of
    /// an `include`).
    pub fn parse(files: &[(&str, &str)]) -> Result<Schema, SchemaError> {
        let Some(&(main_name, _)) = files.first() else {
            schema_bail!("no schema files given");
        };
        let mut reader = Reader::default();
        reader.read_file(files, main_name, 0)?;
        reader.resolve()
    }

    /// The qualified name of the root table.
    pub fn root_name(&self) -> &str {
        &self.tables[self.root].name
    }

    /// The file identifier the root schema declares, if any.
    pub fn identifier(&self) -> Option<[u8; 4]> {
        self.identifier
    }
}

// ---------------------------------------------------------------------------
// Tokens

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Number(String),
    Str(String),
    Punct(char),
}

fn tokenize(file: &str, text: &str) -> Result<Vec<(Tok, usize)>, SchemaError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    line += usize::from(bytes[i] == b'\n');
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += 1;
                }
                if bytes.get(i) != Some(&b'"') {
                    schema_bail!("{file}:{line}: unterminated string");
                }
                out.push((Tok::Str(text[start..i].to_string()), line));
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push((Tok::Ident(text[start..i].to_string()), line));
            }
            c if c.is_ascii_digit()
                || ((c == b'-' || c == b'+')
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                let start = i;
                i += 1;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || bytes[i] == b'.'
                        || bytes[i] == b'_'
                        || ((bytes[i] == b'-' || bytes[i] == b'+')
                            && matches!(bytes[i - 1], b'e' | b'E')))
                {
                    i += 1;
                }
                out.push((Tok::Number(text[start..i].to_string()), line));
            }
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b':' | b';' | b',' | b'=' | b'.' => {
                out.push((Tok::Punct(c as char), line));
                i += 1;
            }
            _ => schema_bail!("{file}:{line}: unexpected character {:?}", c as char),
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Declarations as written

#[derive(Clone, Debug)]
enum RawType {
    Named(String),
    Vector(String),
}

#[derive(Clone, Debug)]
struct RawField {
    name: String,
    ty: RawType,
    attrs: Vec<(String, Option<String>)>,
    line: usize,
}

impl RawField {
    fn attr(&self, key: &str) -> Option<Option<&str>> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_deref())
    }
}

#[derive(Clone, Debug)]
enum DeclKind {
    Enum {
        underlying: String,
        values: Vec<(String, i64)>,
    },
    Union {
        members: Vec<(i64, String)>,
    },
    Struct {
        fields: Vec<RawField>,
        force_align: Option<u32>,
    },
    Table {
        fields: Vec<RawField>,
    },
}

#[derive(Clone, Debug)]
struct Decl {
    namespace: Vec<String>,
    kind: DeclKind,
    file: String,
}

#[derive(Default)]
struct Reader {
    decls: HashMap<String, Decl>,
    /// Qualified names in declaration order (tables are numbered in it).
    order: Vec<String>,
    root: Option<(String, Vec<String>)>,
    identifier: Option<[u8; 4]>,
    files_read: Vec<String>,
}

/// The scalar types: size in bytes, and whether they are integers.
fn scalar(name: &str) -> Option<(u32, bool)> {
    Some(match name {
        "bool" => (1, true),
        "byte" | "ubyte" | "int8" | "uint8" => (1, true),
        "short" | "ushort" | "int16" | "uint16" => (2, true),
        "int" | "uint" | "int32" | "uint32" => (4, true),
        "long" | "ulong" | "int64" | "uint64" => (8, true),
        "float" | "float32" => (4, false),
        "double" | "float64" => (8, false),
        _ => return None,
    })
}

fn parse_int(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<i64>().ok()?,
    };
    Some(if negative { -value } else { value })
}

struct Cursor<'t> {
    toks: &'t [(Tok, usize)],
    at: usize,
    file: &'t str,
}

impl Cursor<'_> {
    fn line(&self) -> usize {
        self.toks
            .get(self.at)
            .or(self.toks.last())
            .map_or(0, |t| t.1)
    }

    fn error(&self, what: &str) -> SchemaError {
        SchemaError(format!("{}:{}: {what}", self.file, self.line()))
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.0)
    }

    fn next(&mut self) -> Option<Tok> {
        let tok = self.toks.get(self.at).map(|t| t.0.clone());
        self.at += usize::from(tok.is_some());
        tok
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let found = self.is_punct(c);
        self.at += usize::from(found);
        found
    }

    fn punct(&mut self, c: char) -> Result<(), SchemaError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected '{c}'")))
        }
    }

    fn ident(&mut self) -> Result<String, SchemaError> {
        match self.next() {
            Some(Tok::Ident(name)) => Ok(name),
            _ => {
                self.at -= 1;
                Err(self.error("expected a name"))
            }
        }
    }

    /// A possibly qualified name (`a.b.C`).
    fn qualified(&mut self) -> Result<String, SchemaError> {
        let mut name = self.ident()?;
        while self.eat_punct('.') {
            name.push('.');
            name.push_str(&self.ident()?);
        }
        Ok(name)
    }

    fn string(&mut self) -> Result<String, SchemaError> {
        match self.next() {
            Some(Tok::Str(s)) => Ok(s),
            _ => Err(self.error("expected a string")),
        }
    }

    /// A single value: number, identifier or string (defaults and
    /// attribute values).
    fn value(&mut self) -> Result<String, SchemaError> {
        match self.next() {
            Some(Tok::Number(n)) => Ok(n),
            Some(Tok::Str(s)) => Ok(s),
            Some(Tok::Ident(_)) => {
                self.at -= 1;
                self.qualified()
            }
            _ => Err(self.error("expected a value")),
        }
    }

    /// `( key [: value], ... )`, if present.
    fn attributes(&mut self) -> Result<Vec<(String, Option<String>)>, SchemaError> {
        let mut attrs = Vec::new();
        if !self.eat_punct('(') {
            return Ok(attrs);
        }
        loop {
            let key = self.ident()?;
            let value = if self.eat_punct(':') {
                Some(self.value()?)
            } else {
                None
            };
            attrs.push((key, value));
            if self.eat_punct(')') {
                return Ok(attrs);
            }
            self.punct(',')?;
        }
    }

    fn ty(&mut self) -> Result<RawType, SchemaError> {
        if self.eat_punct('[') {
            let elem = self.qualified()?;
            if self.is_punct(':') {
                return Err(self.error("fixed-length arrays are not supported"));
            }
            self.punct(']')?;
            Ok(RawType::Vector(elem))
        } else {
            Ok(RawType::Named(self.qualified()?))
        }
    }

    fn fields(&mut self) -> Result<Vec<RawField>, SchemaError> {
        self.punct('{')?;
        let mut fields = Vec::new();
        while !self.eat_punct('}') {
            let line = self.line();
            let name = self.ident()?;
            self.punct(':')?;
            let ty = self.ty()?;
            if self.eat_punct('=') {
                self.value()?;
            }
            let attrs = self.attributes()?;
            self.punct(';')?;
            fields.push(RawField {
                name,
                ty,
                attrs,
                line,
            });
        }
        Ok(fields)
    }
}

impl Reader {
    fn read_file(
        &mut self,
        files: &[(&str, &str)],
        name: &str,
        depth: usize,
    ) -> Result<(), SchemaError> {
        let base = name.rsplit('/').next().unwrap_or(name);
        if self.files_read.iter().any(|f| f == base) {
            return Ok(());
        }
        if depth > 16 {
            schema_bail!("includes nested too deeply at {base}");
        }
        let Some(&(_, text)) = files
            .iter()
            .find(|(n, _)| n.rsplit('/').next().unwrap_or(n) == base)
        else {
            schema_bail!("included file {name} was not given");
        };
        self.files_read.push(base.to_string());
        let toks = tokenize(base, text)?;
        let mut c = Cursor {
            toks: &toks,
            at: 0,
            file: base,
        };
        let mut namespace: Vec<String> = Vec::new();
        while let Some(tok) = c.next() {
            let Tok::Ident(keyword) = tok else {
                c.at -= 1;
                return Err(c.error("expected a declaration"));
            };
            match keyword.as_str() {
                "include" => {
                    let included = c.string()?;
                    c.punct(';')?;
                    self.read_file(files, &included, depth + 1)?;
                }
                "native_include" => {
                    c.string()?;
                    c.punct(';')?;
                }
                "namespace" => {
                    namespace = if c.is_punct(';') {
                        Vec::new()
                    } else {
                        c.qualified()?.split('.').map(str::to_string).collect()
                    };
                    c.punct(';')?;
                }
                "attribute" => {
                    if matches!(c.peek(), Some(Tok::Str(_))) {
                        c.string()?;
                    } else {
                        c.ident()?;
                    }
                    c.punct(';')?;
                }
                "file_identifier" => {
                    let id = c.string()?;
                    c.punct(';')?;
                    if depth == 0 {
                        let id: [u8; 4] = id
                            .as_bytes()
                            .try_into()
                            .map_err(|_| c.error("file_identifier must be 4 bytes"))?;
                        self.identifier = Some(id);
                    }
                }
                "file_extension" => {
                    c.string()?;
                    c.punct(';')?;
                }
                "root_type" => {
                    let root = c.qualified()?;
                    c.punct(';')?;
                    if depth == 0 {
                        self.root = Some((root, namespace.clone()));
                    }
                }
                "enum" => {
                    let name = c.ident()?;
                    c.punct(':')?;
                    let underlying = c.ident()?;
                    let attrs = c.attributes()?;
                    let bit_flags = attrs.iter().any(|(k, _)| k == "bit_flags");
                    c.punct('{')?;
                    let mut values = Vec::new();
                    let mut next = 0i64;
                    while !c.eat_punct('}') {
                        let value_name = c.ident()?;
                        if c.eat_punct('=') {
                            let text = c.value()?;
                            next = parse_int(&text)
                                .ok_or_else(|| c.error("expected an integer enum value"))?;
                        }
                        let value = if bit_flags {
                            1i64.checked_shl(u32::try_from(next).unwrap_or(64))
                                .ok_or_else(|| c.error("bit flag out of range"))?
                        } else {
                            next
                        };
                        values.push((value_name, value));
                        next += 1;
                        c.attributes()?;
                        if !c.eat_punct(',') {
                            c.punct('}')?;
                            break;
                        }
                    }
                    self.declare(&c, &namespace, name, DeclKind::Enum { underlying, values })?;
                }
                "union" => {
                    let name = c.ident()?;
                    c.attributes()?;
                    c.punct('{')?;
                    let mut members = Vec::new();
                    let mut next = 1i64;
                    while !c.eat_punct('}') {
                        let mut member = c.qualified()?;
                        if c.eat_punct(':') {
                            member = c.qualified()?;
                        }
                        if c.eat_punct('=') {
                            let text = c.value()?;
                            next = parse_int(&text)
                                .ok_or_else(|| c.error("expected an integer union tag"))?;
                        }
                        members.push((next, member));
                        next += 1;
                        c.attributes()?;
                        if !c.eat_punct(',') {
                            c.punct('}')?;
                            break;
                        }
                    }
                    self.declare(&c, &namespace, name, DeclKind::Union { members })?;
                }
                "struct" => {
                    let name = c.ident()?;
                    let attrs = c.attributes()?;
                    let force_align = match attrs.iter().find(|(k, _)| k == "force_align") {
                        Some((_, Some(v))) => Some(
                            v.parse::<u32>()
                                .map_err(|_| c.error("bad force_align value"))?,
                        ),
                        Some((_, None)) => return Err(c.error("force_align needs a value")),
                        None => None,
                    };
                    let fields = c.fields()?;
                    self.declare(
                        &c,
                        &namespace,
                        name,
                        DeclKind::Struct {
                            fields,
                            force_align,
                        },
                    )?;
                }
                "table" => {
                    let name = c.ident()?;
                    c.attributes()?;
                    let fields = c.fields()?;
                    self.declare(&c, &namespace, name, DeclKind::Table { fields })?;
                }
                other => {
                    c.at -= 1;
                    return Err(c.error(&format!("unsupported declaration `{other}`")));
                }
            }
        }
        Ok(())
    }

    fn declare(
        &mut self,
        c: &Cursor<'_>,
        namespace: &[String],
        name: String,
        kind: DeclKind,
    ) -> Result<(), SchemaError> {
        let qualified = namespace
            .iter()
            .cloned()
            .chain(std::iter::once(name))
            .collect::<Vec<_>>()
            .join(".");
        if self.decls.contains_key(&qualified) {
            return Err(c.error(&format!("`{qualified}` declared twice")));
        }
        self.order.push(qualified.clone());
        self.decls.insert(
            qualified,
            Decl {
                namespace: namespace.to_vec(),
                kind,
                file: c.file.to_string(),
            },
        );
        Ok(())
    }

    /// The qualified name `name` refers to from `namespace` (innermost
    /// namespace first, as flatc resolves names).
    fn lookup(&self, namespace: &[String], name: &str) -> Option<&str> {
        for depth in (0..=namespace.len()).rev() {
            let candidate = namespace[..depth]
                .iter()
                .map(String::as_str)
                .chain(std::iter::once(name))
                .collect::<Vec<_>>()
                .join(".");
            if let Some((key, _)) = self.decls.get_key_value(&candidate) {
                return Some(key);
            }
        }
        None
    }

    fn resolve(self) -> Result<Schema, SchemaError> {
        let Some((root_name, root_namespace)) = &self.root else {
            schema_bail!("the root schema declares no root_type");
        };
        let table_index: HashMap<&str, usize> = self
            .order
            .iter()
            .filter(|n| matches!(self.decls[*n].kind, DeclKind::Table { .. }))
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let union_names: Vec<&str> = self
            .order
            .iter()
            .filter(|n| matches!(self.decls[*n].kind, DeclKind::Union { .. }))
            .map(String::as_str)
            .collect();
        let mut resolver = Resolver {
            reader: &self,
            table_index,
            union_index: union_names
                .iter()
                .enumerate()
                .map(|(i, n)| (*n, i))
                .collect(),
            unions: Vec::new(),
            struct_layouts: HashMap::new(),
        };
        for name in &union_names {
            let DeclKind::Union { members } = &self.decls[*name].kind else {
                unreachable!("filtered to unions")
            };
            let union = resolver.union_of(name, members)?;
            resolver.unions.push(union);
        }
        let mut tables = Vec::new();
        for name in &self.order {
            if let DeclKind::Table { fields } = &self.decls[name].kind {
                tables.push(resolver.table(name, fields)?);
            }
        }
        let root = self
            .lookup(root_namespace, root_name)
            .and_then(|q| resolver.table_index.get(q).copied())
            .ok_or_else(|| SchemaError(format!("root_type `{root_name}` is not a table")))?;
        Ok(Schema {
            tables,
            unions: resolver.unions,
            root,
            identifier: self.identifier,
        })
    }
}

struct Resolver<'r> {
    reader: &'r Reader,
    table_index: HashMap<&'r str, usize>,
    union_index: HashMap<&'r str, usize>,
    unions: Vec<Union>,
    struct_layouts: HashMap<String, (u32, u32)>,
}

/// What a named type is, for a field.
enum Named {
    Inline { size: u32, align: u32 },
    IntegerEnum { size: u32, qualified: String },
    Table(usize),
    Union(usize),
}

impl Resolver<'_> {
    fn decl(&self, qualified: &str) -> &Decl {
        &self.reader.decls[qualified]
    }

    fn named(&mut self, namespace: &[String], name: &str, at: &str) -> Result<Named, SchemaError> {
        if let Some((size, _)) = scalar(name) {
            return Ok(Named::Inline { size, align: size });
        }
        let Some(qualified) = self.reader.lookup(namespace, name).map(str::to_string) else {
            schema_bail!("{at}: unknown type `{name}`");
        };
        Ok(match &self.decl(&qualified).kind {
            DeclKind::Enum { underlying, .. } => match scalar(underlying) {
                Some((size, true)) => Named::IntegerEnum { size, qualified },
                _ => schema_bail!("{at}: enum `{qualified}` has a non-integer type"),
            },
            DeclKind::Struct { .. } => {
                let (size, align) = self.struct_layout(&qualified, 0)?;
                Named::Inline { size, align }
            }
            DeclKind::Table { .. } => Named::Table(self.table_index[qualified.as_str()]),
            DeclKind::Union { .. } => Named::Union(self.union_index[qualified.as_str()]),
        })
    }

    /// Size and alignment of a struct: fields at their natural alignment,
    /// the size rounded up to the struct's alignment.
    fn struct_layout(&mut self, qualified: &str, depth: usize) -> Result<(u32, u32), SchemaError> {
        if let Some(&layout) = self.struct_layouts.get(qualified) {
            return Ok(layout);
        }
        if depth > 64 {
            schema_bail!("struct `{qualified}` contains itself");
        }
        let decl = self.decl(qualified).clone();
        let DeclKind::Struct {
            fields,
            force_align,
        } = &decl.kind
        else {
            unreachable!("called for structs only")
        };
        let (mut size, mut align) = (0u32, force_align.unwrap_or(1));
        for field in fields {
            let at = format!("{}:{}", decl.file, field.line);
            let RawType::Named(name) = &field.ty else {
                schema_bail!("{at}: struct fields cannot be vectors");
            };
            let (field_size, field_align) = if let Some((s, _)) = scalar(name) {
                (s, s)
            } else {
                let Some(q) = self
                    .reader
                    .lookup(&decl.namespace, name)
                    .map(str::to_string)
                else {
                    schema_bail!("{at}: unknown type `{name}`");
                };
                match &self.decl(&q).kind {
                    DeclKind::Enum { underlying, .. } => match scalar(underlying) {
                        Some((s, true)) => (s, s),
                        _ => schema_bail!("{at}: enum `{q}` has a non-integer type"),
                    },
                    DeclKind::Struct { .. } => self.struct_layout(&q, depth + 1)?,
                    _ => schema_bail!("{at}: struct fields must be scalars, enums or structs"),
                }
            };
            size = size.next_multiple_of(field_align) + field_size;
            align = align.max(field_align);
        }
        let layout = (size.next_multiple_of(align), align);
        self.struct_layouts.insert(qualified.to_string(), layout);
        Ok(layout)
    }

    fn union_of(
        &mut self,
        qualified: &str,
        members: &[(i64, String)],
    ) -> Result<Union, SchemaError> {
        let decl = self.decl(qualified).clone();
        let mut resolved = Vec::new();
        for (tag, member) in members {
            let at = format!("{}: union `{qualified}`", decl.file);
            let tag = u8::try_from(*tag)
                .ok()
                .filter(|&t| t != 0)
                .ok_or_else(|| SchemaError(format!("{at}: tag {tag} out of range")))?;
            match self.named(&decl.namespace, member, &at)? {
                Named::Table(table) => resolved.push((tag, table)),
                _ => schema_bail!(
                    "{at}: member `{member}` is not a table (only table members are supported)"
                ),
            }
        }
        Ok(Union { members: resolved })
    }

    /// The union a `union_vector` field's tag enum describes.
    fn union_from_enum(&mut self, enum_name: &str, at: &str) -> Result<usize, SchemaError> {
        let decl = self.decl(enum_name).clone();
        let DeclKind::Enum { values, .. } = &decl.kind else {
            schema_bail!("{at}: `{enum_name}` is not an enum");
        };
        let members: Vec<(i64, String)> = values
            .iter()
            .filter(|(_, v)| *v != 0)
            .map(|(n, v)| (*v, n.clone()))
            .collect();
        let union = self.union_of(enum_name, &members)?;
        self.unions.push(union);
        Ok(self.unions.len() - 1)
    }

    fn table(&mut self, qualified: &str, raw: &[RawField]) -> Result<Table, SchemaError> {
        let decl = self.decl(qualified).clone();
        let explicit_ids = raw.iter().filter(|f| f.attr("id").is_some()).count();
        if explicit_ids != 0 && explicit_ids != raw.len() {
            schema_bail!(
                "{}: table `{qualified}` gives ids to some fields only",
                decl.file
            );
        }
        let mut fields: Vec<Field> = Vec::new();
        let mut next_id = 0u32;
        for (index, field) in raw.iter().enumerate() {
            let at = format!("{}:{}", decl.file, field.line);
            let union_vector = field.attr("union_vector").is_some();
            let kind = match (&field.ty, field.attr("wire_string").is_some()) {
                (RawType::Vector(elem), true) => match scalar(elem) {
                    Some((1, true)) => Kind::String,
                    _ => schema_bail!("{at}: `wire_string` needs a byte vector"),
                },
                (_, true) => schema_bail!("{at}: `wire_string` needs a byte vector"),
                (RawType::Vector(elem), false) if union_vector => {
                    let Some(tags) = index.checked_sub(1).map(|i| &raw[i]) else {
                        schema_bail!("{at}: `union_vector` needs the tag vector field before it");
                    };
                    let RawType::Vector(tag_enum) = &tags.ty else {
                        schema_bail!("{at}: the field before a `union_vector` must be a vector");
                    };
                    match self.named(&decl.namespace, tag_enum, &at)? {
                        Named::IntegerEnum { size: 1, qualified } => {
                            if !matches!(self.named(&decl.namespace, elem, &at)?, Named::Table(_)) {
                                schema_bail!(
                                    "{at}: a `union_vector` must be declared as a table vector"
                                );
                            }
                            Kind::UnionVector(self.union_from_enum(&qualified, &at)?)
                        }
                        _ => schema_bail!("{at}: a union vector's tags must be a ubyte enum"),
                    }
                }
                (_, false) if union_vector => schema_bail!("{at}: `union_vector` needs a vector"),
                (RawType::Vector(elem), false) => match field.attr("nested_flatbuffer") {
                    Some(Some(root)) => {
                        match (scalar(elem), self.named(&decl.namespace, root, &at)?) {
                            (Some((1, true)), Named::Table(table)) => Kind::Nested(table),
                            _ => schema_bail!(
                                "{at}: `nested_flatbuffer` needs a byte vector and a table"
                            ),
                        }
                    }
                    Some(None) => schema_bail!("{at}: `nested_flatbuffer` needs a table name"),
                    None if elem == "string" => Kind::StringVector,
                    None => match self.named(&decl.namespace, elem, &at)? {
                        Named::Inline { size, align } => Kind::Vector { size, align },
                        Named::IntegerEnum { size, .. } => Kind::Vector { size, align: size },
                        Named::Table(table) => Kind::TableVector(table),
                        Named::Union(union) => Kind::UnionVector(union),
                    },
                },
                (RawType::Named(name), false) if name == "string" => Kind::String,
                (RawType::Named(name), false) => match self.named(&decl.namespace, name, &at)? {
                    Named::Inline { size, align } => Kind::Inline { size, align },
                    Named::IntegerEnum { size, .. } => Kind::Inline { size, align: size },
                    Named::Table(table) => Kind::Table(table),
                    Named::Union(union) => Kind::Union(union),
                },
            };
            let takes_two_ids = matches!(kind, Kind::Union(_))
                || (matches!(kind, Kind::UnionVector(_)) && !union_vector);
            let id = match field.attr("id") {
                Some(Some(text)) => text
                    .parse::<u32>()
                    .map_err(|_| SchemaError(format!("{at}: bad id `{text}`")))?,
                Some(None) => schema_bail!("{at}: `id` needs a value"),
                None => {
                    next_id += u32::from(takes_two_ids);
                    let id = next_id;
                    next_id += 1;
                    id
                }
            };
            let id = u16::try_from(id)
                .ok()
                .filter(|&id| id < 0x7fff)
                .ok_or_else(|| SchemaError(format!("{at}: field id out of range")))?;
            if union_vector {
                // The tag vector is verified as part of the union vector.
                let tags = fields.pop();
                if tags.is_none_or(|t| t.id + 1 != id) {
                    schema_bail!(
                        "{at}: a `union_vector`'s tags must be the field with the id before"
                    );
                }
            }
            if field.attr("deprecated").is_some() {
                continue;
            }
            fields.push(Field {
                name: field.name.clone(),
                id,
                required: field.attr("required").is_some(),
                kind,
            });
        }
        if explicit_ids != 0 {
            fields.sort_by_key(|f| f.id);
        }
        Ok(Table {
            name: qualified.to_string(),
            fields,
        })
    }
}
