//! Crown's host functions as the compiled tier calls them: every function registered on
//! the engine is also kept here, by name and parameter types, so that a call site finds
//! its target once per argument types instead of at every call.
//!
//! [`Registrar`] stands between the API files and the engine: `e.register_fn(signature,
//! text, func)` registers `func` on the engine as Rhai's `register_fn` does, keeps the
//! same callable, and keeps its documentation for the script API reference
//! (`script/docs.rs`).

use std::any::TypeId;
use std::collections::HashMap;

use rhai::{Engine, RhaiFunc, RhaiNativeFunc, Variant};

use super::glue::{Callable, Glue};
use crate::script::docs::{FnDoc, SECTIONS};

/// One registered host function.
#[derive(Clone)]
pub(crate) struct HostFn {
    /// The parameter types (see [`Param`]).
    pub params: Vec<Param>,
    /// What Rhai's record of it says, read once.
    pub kind: Kind,
    /// The same function through Crown's glue, which the compiled tier calls.
    pub call: Callable,
}

impl HostFn {
    /// Whether its parameters have exactly these types.
    fn has_types(&self, types: &[TypeId]) -> bool {
        self.params.iter().map(|p| p.id()).eq(types.iter().copied())
    }

    /// Whether a parameter is `Dynamic` (any type).
    fn takes_dynamic(&self) -> bool {
        self.params.iter().any(|p| p.id() == TypeId::of::<rhai::Dynamic>())
    }
}

/// What the compiled tier needs to know of a host function besides its types, read once
/// from Rhai's record of it (`RhaiFunc`) instead of at every call.
#[derive(Clone, Copy)]
pub(crate) struct Kind {
    pub pure: bool,
    /// Its first parameter is `&mut T`: the value where it lies.
    pub method: bool,
    /// Its first parameter is a `NativeCallContext`.
    pub context: bool,
}

impl Kind {
    fn of(f: &RhaiFunc) -> Kind {
        Kind { pure: f.is_pure(), method: f.is_method(), context: f.has_context() }
    }
}

/// A parameter type, as an argument is checked against it: the types most parameters have
/// by the value's own tag (`Dynamic::is_int` and the like agree with `Dynamic::type_id`,
/// without working out the whole id), any other by its id.
#[derive(Clone, Copy)]
pub(crate) enum Param {
    Int,
    Bool,
    Text,
    Other(TypeId),
}

impl Param {
    pub fn of(t: TypeId) -> Param {
        if t == TypeId::of::<rhai::INT>() {
            Param::Int
        } else if t == TypeId::of::<bool>() {
            Param::Bool
        } else if t == TypeId::of::<rhai::ImmutableString>() {
            Param::Text
        } else {
            Param::Other(t)
        }
    }

    /// The type's id.
    pub fn id(self) -> TypeId {
        match self {
            Param::Int => TypeId::of::<rhai::INT>(),
            Param::Bool => TypeId::of::<bool>(),
            Param::Text => TypeId::of::<rhai::ImmutableString>(),
            Param::Other(t) => t,
        }
    }

    /// Whether `v` has this type.
    #[inline(always)]
    pub fn admits(self, v: &rhai::Dynamic) -> bool {
        match self {
            Param::Int => v.is_int(),
            Param::Bool => v.is_bool(),
            Param::Text => v.is_string(),
            Param::Other(t) => t == v.type_id(),
        }
    }
}

/// Methods of Rhai's standard library that leave the list or map they are called on as
/// it was (Rhai marks their list and map forms pure: a constant may call them). A name
/// not listed here counts as one that may change it. Held to Rhai's marks by
/// `tests::the_standard_readers_may_be_called_on_constants`.
pub(crate) const STD_READERS: &[&str] = &[
    "len",
    "is_empty",
    "contains",
    "index_of",
    "keys",
    "values",
    "filter",
    "map",
    "reduce",
    "reduce_rev",
    "all",
    "some",
    "find",
    "find_map",
    "zip",
    "to_string",
    "to_debug",
];

/// Host functions by name and number of parameters.
#[derive(Default)]
pub(crate) struct HostTable {
    by_name: HashMap<(String, usize), Vec<HostFn>>,
    /// The standard library's functions' parameter types, by name and arity.
    std_types: HashMap<(String, usize), Vec<Vec<TypeId>>>,
    std_module: Option<rhai::Shared<rhai::Module>>,
}

impl HostTable {
    /// The host function whose parameter types are exactly these: what Rhai's
    /// resolution picks (the engine's own functions come before every package, and a
    /// script's functions never match a native call's typed hash).
    pub(crate) fn exact(&self, name: &str, args: &[TypeId]) -> Option<&HostFn> {
        self.by_name.get(&(name.to_string(), args.len()))?.iter().find(|f| f.has_types(args))
    }

    /// The one function a call by name with `n` arguments can reach, when there is only
    /// one: the only host function of that name and number, none of its parameters
    /// `Dynamic` and its first one by value, no standard function of that name and
    /// number. (Arguments of other types find no function at all.)
    pub(crate) fn only(&self, name: &str, n: usize) -> Option<&HostFn> {
        match self.by_name.get(&(name.to_string(), n))?.as_slice() {
            [f] if !f.kind.method && !f.takes_dynamic() && !self.std_types.contains_key(&(name.to_string(), n)) => {
                Some(f)
            }
            _ => None,
        }
    }

    /// Whether a method `name` with `n` arguments (the value it is called on first) leaves
    /// a list or map it is called on as it was: some function has that name and number,
    /// every host function of them is pure, and where the standard library has one, the
    /// name is among [`STD_READERS`].
    pub(crate) fn leaves_value(&self, name: &str, n: usize) -> bool {
        let key = (name.to_string(), n);
        let host = self.by_name.get(&key);
        let std = self.std_types.contains_key(&key);
        (host.is_some() || std)
            && host.is_none_or(|fs| fs.iter().all(|f| f.kind.pure))
            && (!std || STD_READERS.contains(&name))
    }

    /// Whether the standard library iterates values of this type.
    pub(crate) fn iterable(&self, t: TypeId) -> bool {
        self.std_module.as_ref().is_some_and(|m| m.contains_iter(t))
    }

    /// Whether a host function of this name and arity takes `Dynamic` parameters.
    pub(crate) fn has_dynamic(&self, name: &str, n: usize) -> bool {
        self.by_name.get(&(name.to_string(), n)).is_some_and(|fs| fs.iter().any(HostFn::takes_dynamic))
    }

    /// The host function Rhai's resolution picks for arguments of types `args` when none
    /// has exactly these types, or `None` when it picks something else (a standard
    /// function, an operator, or nothing: the engine's resolution then decides). Rhai
    /// tries the patterns in order, the arguments' own types first, then with `Dynamic`
    /// in place of some (bit `k - 1 - i` of the mask makes parameter `i` `Dynamic`, masks
    /// counting up), and at each pattern the engine's own functions before the standard
    /// library's.
    pub(crate) fn dynamic(&self, name: &str, args: &[TypeId]) -> Option<&HostFn> {
        let key = (name.to_string(), args.len());
        let fs = self.by_name.get(&key)?;
        let std = self.std_types.get(&key).map_or(&[][..], Vec::as_slice);
        let k = args.len().min(16);
        let dynamic = TypeId::of::<rhai::Dynamic>();
        let mut pattern = args.to_vec();
        for mask in 0usize..(1 << k) {
            for (i, t) in pattern.iter_mut().enumerate().take(k) {
                *t = if mask & (1 << (k - i - 1)) != 0 { dynamic } else { args[i] };
            }
            if let Some(f) = fs.iter().find(|f| f.has_types(&pattern)) {
                return Some(f);
            }
            if std.contains(&pattern) {
                return None;
            }
        }
        None
    }
}

/// Registers host functions on an engine, keeps them in a [`HostTable`] and keeps their
/// documentation ([`FnDoc`]), each under the section of the reference named last
/// ([`Registrar::section`]).
pub struct Registrar<'e> {
    engine: &'e mut Engine,
    table: HostTable,
    /// The section of the reference the functions registered now are listed in.
    section: Option<&'static str>,
    /// Every function's documentation, in the order registered.
    docs: Vec<FnDoc>,
    /// The engine's own types by the name they were registered under (`Menu`), for the
    /// reference.
    type_names: Vec<(TypeId, &'static str)>,
}

impl<'e> Registrar<'e> {
    pub fn new(engine: &'e mut Engine) -> Self {
        Registrar { engine, table: HostTable::default(), section: None, docs: Vec::new(), type_names: Vec::new() }
    }

    /// List the functions registered from now on in this section of the script API
    /// reference (one of [`SECTIONS`], which orders them).
    pub fn section(&mut self, name: &'static str) -> &mut Self {
        assert!(SECTIONS.contains(&name), "`{name}` is not a section of the reference (docs::SECTIONS lists them)");
        self.section = Some(name);
        self
    }

    /// Register `func` as a host function (as [`Engine::register_fn`]), keep it, and keep
    /// its documentation: `signature` is how a designer writes a call, its parameters
    /// named (`"player_name(p)"`; `"list.find(|x| ..., start)"` for a method called on
    /// its first parameter, `|x| ...` standing for a closure), and `text` says what it
    /// does. The reference adds the parameters' and the result's types, read from `func`.
    /// Up to 6 parameters (Crown's glue, [`Glue`], is implemented for that many).
    ///
    /// Panics, naming the function, when the signature does not fit `func` (see
    /// [`FnDoc::new`]) or no section was named first.
    pub fn register_fn<A: 'static, const N: usize, const X: bool, R: Variant + Clone, const F: bool, G>(
        &mut self,
        signature: &str,
        text: &'static str,
        func: impl RhaiNativeFunc<A, N, X, R, F> + Glue<G> + Send + Sync + Clone + 'static,
    ) -> &mut Self {
        let name = self.document::<A, N, X, R, F, _>(signature, text, &func);
        self.keep::<A, N, X, R, F, G, _>(&name, func.clone());
        self.engine.register_fn(name, func);
        self
    }

    /// Register `func` as [`Registrar::register_fn`] does, a method that changes the value
    /// it is called on (`&mut` first parameter): not pure, so that calling it on a
    /// constant is an error, as it is for Rhai's own `sort` or `retain`.
    pub fn register_mutating<A: 'static, const N: usize, const X: bool, R: Variant + Clone, const F: bool, G>(
        &mut self,
        signature: &str,
        text: &'static str,
        func: impl RhaiNativeFunc<A, N, X, R, F> + Glue<G> + Send + Sync + Clone + 'static,
    ) -> &mut Self {
        let name = self.document::<A, N, X, R, F, _>(signature, text, &func);
        self.keep_with::<A, N, X, R, F, G, _>(&name, func.clone(), false);
        rhai::FuncRegistration::new(name).with_purity(false).register_into_engine(self.engine, func);
        self
    }

    /// Keep the documentation of `func`, registered with `signature` and `text`, and
    /// return the name it is registered under. (Only the types are read here, once for
    /// each function type; the rest is [`Registrar::document_types`], built once.)
    fn document<A: 'static, const N: usize, const X: bool, R: Variant + Clone, const F: bool, FUNC>(
        &mut self,
        signature: &str,
        text: &'static str,
        _func: &FUNC,
    ) -> String
    where
        FUNC: RhaiNativeFunc<A, N, X, R, F>,
    {
        let (types, names) = (FUNC::param_types(), FUNC::param_names());
        self.document_types(signature, text, &types, &names, (TypeId::of::<R>(), std::any::type_name::<R>()))
    }

    fn document_types(
        &mut self,
        signature: &str,
        text: &'static str,
        types: &[TypeId],
        names: &[&'static str],
        returns: (TypeId, &'static str),
    ) -> String {
        let section = self.section.unwrap_or_else(|| {
            panic!("host function `{signature}`: no section of the reference named before it (`e.section(...)`)")
        });
        let params: Vec<(TypeId, &'static str)> = types.iter().copied().zip(names.iter().copied()).collect();
        let doc = FnDoc::new(section, signature, text, &params, returns, &self.type_names)
            .unwrap_or_else(|why| panic!("{why}"));
        let name = doc.name.clone();
        self.docs.push(doc);
        name
    }

    fn keep<A: 'static, const N: usize, const X: bool, R: Variant + Clone, const F: bool, G, FUNC>(
        &mut self,
        name: &str,
        func: FUNC,
    ) where
        FUNC: RhaiNativeFunc<A, N, X, R, F> + Glue<G> + Clone + Send + Sync + 'static,
    {
        // Rhai's default purity: every function is pure but property and index setters.
        let is_pure = !(N == 3 && name == "index$set$" || N == 2 && name.starts_with("set$"));
        self.keep_with::<A, N, X, R, F, G, _>(name, func, is_pure);
    }

    fn keep_with<A: 'static, const N: usize, const X: bool, R: Variant + Clone, const F: bool, G, FUNC>(
        &mut self,
        name: &str,
        func: FUNC,
        is_pure: bool,
    ) where
        FUNC: RhaiNativeFunc<A, N, X, R, F> + Glue<G> + Clone + Send + Sync + 'static,
    {
        let call = func.clone().callable();
        let kind = Kind::of(&func.into_rhai_function(is_pure, false));
        self.keep_fn(name, &FUNC::param_types(), kind, call);
    }

    /// Keep a host function of parameter types `types` in the table.
    fn keep_fn(&mut self, name: &str, types: &[TypeId], kind: Kind, call: Callable) {
        // (Crown's glue reads text as `ImmutableString` or `String`; a `&str` parameter,
        // which Rhai's glue borrows from the argument, would not convert.)
        assert!(
            !types.contains(&TypeId::of::<&str>()),
            "host function `{name}`: take text as `ImmutableString`, not `&str`"
        );
        let params = types.iter().copied().map(Param::of).collect();
        let f = HostFn { params, kind, call };
        self.table.by_name.entry((name.to_string(), types.len())).or_default().push(f);
    }

    /// Register a custom type's name (as [`Engine::register_type_with_name`]), which the
    /// reference calls it by too.
    pub fn register_type_with_name<T: Variant + Clone>(&mut self, name: &'static str) -> &mut Self {
        self.engine.register_type_with_name::<T>(name);
        self.type_names.push((TypeId::of::<T>(), name));
        self
    }

    /// The documentation of every function registered, in the order registered.
    pub(crate) fn into_docs(self) -> Vec<FnDoc> {
        self.docs
    }

    pub(crate) fn finish(mut self) -> HostTable {
        use rhai::packages::Package;
        let std = rhai::packages::StandardPackage::new();
        self.table.std_module = Some(std.as_shared_module());
        // The standard library's functions as an engine holding only them lists them.
        let mut only_std = Engine::new_raw();
        std.register_into_engine(&mut only_std);
        let listed = only_std.collect_fn_metadata(
            None,
            |f| Some((f.metadata.name.to_string(), f.metadata.param_types.to_vec())),
            true,
        );
        for (name, types) in listed {
            self.table.std_types.entry((name, types.len())).or_default().push(types);
        }
        self.table
    }
}

#[cfg(test)]
mod tests {
    use std::any::TypeId;
    use std::sync::Arc;

    use rhai::{Array, Dynamic, FnPtr, INT};

    use super::{HostFn, HostTable, Kind, Param};

    /// A table of one host function `name(host)` beside a standard one `name(std)`.
    fn table(name: &str, host: &[TypeId], std: &[TypeId]) -> HostTable {
        let mut t = HostTable::default();
        let f = HostFn {
            params: host.iter().copied().map(Param::of).collect(),
            kind: Kind { pure: true, method: false, context: false },
            call: Arc::new(|_, _| Ok(Dynamic::UNIT)),
        };
        t.by_name.insert((name.to_string(), host.len()), vec![f]);
        t.std_types.insert((name.to_string(), std.len()), vec![std.to_vec()]);
        t
    }

    /// Every standard method counted as leaving its list or map as it was is one Rhai lets
    /// a constant call (it refuses a method that may change the value: "Cannot modify
    /// constant"), in its list and map forms, for every number of arguments it has.
    #[test]
    fn the_standard_readers_may_be_called_on_constants() {
        let calls = [
            "a.len()",
            "m.len()",
            "a.is_empty()",
            "m.is_empty()",
            "a.contains(2)",
            "m.contains(\"x\")",
            "a.index_of(2)",
            "a.index_of(2, 1)",
            "a.index_of(|v| v > 1)",
            "a.index_of(|v| v > 1, 1)",
            "m.keys()",
            "m.values()",
            "a.filter(|v| v > 1)",
            "a.filter(Fn(\"big\"))",
            "m.filter(|k, v| v > 1)",
            "a.map(|v| v + 1)",
            "a.map(Fn(\"big\"))",
            "m.map(|k, v| v)",
            "a.reduce(|s, v| v)",
            "a.reduce(|s, v| s + v, 0)",
            "a.reduce_rev(|s, v| v)",
            "a.reduce_rev(|s, v| s + v, 0)",
            "a.all(|v| v > 0)",
            "a.all(Fn(\"big\"))",
            "a.some(|v| v > 0)",
            "a.find(|v| v > 1)",
            "a.find(|v| v > 1, 1)",
            "a.find_map(|v| v)",
            "a.find_map(|v| v, 1)",
            "a.zip([4, 5, 6], |x, y| x + y)",
            "a.to_string()",
            "m.to_string()",
            "a.to_debug()",
            "m.to_debug()",
        ];
        let mut named: Vec<&str> = calls.iter().map(|c| c[2..c.find('(').unwrap()].trim_start_matches('.')).collect();
        named.sort_unstable();
        named.dedup();
        let mut listed = super::STD_READERS.to_vec();
        listed.sort_unstable();
        assert_eq!(named, listed, "every listed reader is called below, and only those");
        let engine = crate::script::plain_engine();
        for call in calls {
            let src = format!("fn big(v) {{ v > 1 }} const a = [1, 2, 3]; const m = #{{ x: 1, y: 2 }}; {call}");
            if let Err(e) = engine.eval::<Dynamic>(&src) {
                panic!("`{call}` on a constant: {e}");
            }
        }
        // (A method that may change its value is refused so.)
        let e = engine.eval::<Dynamic>("const a = [1]; a.push(2)").expect_err("push on a constant");
        assert!(e.to_string().contains("constant"), "{e}");
    }

    /// A call reaches a host function with `Dynamic` parameters only where Rhai's order
    /// of patterns does: the arguments' own types first, then `Dynamic` in place of the
    /// last ones first, and at each pattern the engine's own functions before the standard
    /// library's.
    #[test]
    fn host_and_standard_functions_with_dynamic_parameters_are_reached_in_rhais_order() {
        let (d, list, int) = (TypeId::of::<Dynamic>(), TypeId::of::<Array>(), TypeId::of::<INT>());
        // The standard function has the arguments' own types: it comes first.
        assert!(table("f", &[list, d], &[list, int]).dynamic("f", &[list, int]).is_none());
        // `Dynamic` in place of the last argument comes before the first.
        assert!(table("f", &[d, int], &[list, d]).dynamic("f", &[list, int]).is_none());
        assert!(table("f", &[list, d], &[d, int]).dynamic("f", &[list, int]).is_some());
        // At the same pattern, the host function comes first.
        assert!(table("f", &[list, d], &[list, d]).dynamic("f", &[list, int]).is_some());
        // Arguments no pattern fits reach neither.
        assert!(table("f", &[list, d], &[list, d]).dynamic("f", &[int, int]).is_none());

        // Crown's `reduce(list, f, start)` takes any start, as the standard one does: the
        // engine's own is reached (a function named by text reaches the standard one).
        let shipped = super::super::host_table();
        let fnptr = TypeId::of::<FnPtr>();
        assert!(shipped.dynamic("reduce", &[list, fnptr, int]).is_some());
        assert!(shipped.dynamic("reduce", &[list, TypeId::of::<rhai::ImmutableString>(), int]).is_none());
    }
}
