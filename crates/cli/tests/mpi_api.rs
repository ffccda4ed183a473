//! The MPI 3.1 interface as a whole: `lib/include/mpi.h` (what nocmsg implements) and `mpi_unsupported.h` (the rest)
//! against `tests/mpi/mpi31_functions.txt`, the list of every C function of MPI 3.1.
//!
//! Each listed function must be declared in exactly one of the two headers, and the headers must declare no other
//! `MPI_` function (a typo in a header shows up here, not in a user's program). Every declared function must link, for
//! the simulator and natively: a program takes the address of each, so a missing definition fails here with the
//! list of undefined names. An unsupported function must behave as mpi_unsupported.h says, natively and on the
//! simulator: under MPI_ERRORS_RETURN it returns MPI_ERR_UNSUPPORTED_OPERATION and names itself on stderr; under the
//! default handler it stops the run with a message naming it.

mod common;
use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const LIST: &str = "tests/mpi/mpi31_functions.txt";
/// MPI-1 functions that MPI-3.0 removed but real MPI libraries still provide: mpi.h implements them for old programs
/// (docs/mpi.md); they are no MPI 3.1 functions, and mpi_unsupported.h must not declare them.
const REMOVED: &str = "tests/mpi/mpi1_removed_functions.txt";
const HEADERS: [&str; 2] = ["lib/include/mpi.h", "lib/include/mpi_unsupported.h"];

/// A C source with its comments replaced by spaces (line breaks kept, so lines stay lines).
fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(start) = rest.find("/*").into_iter().chain(rest.find("//")).min() {
        out.push_str(&rest[..start]);
        let block = rest[start..].starts_with("/*");
        let end = if block {
            rest[start + 2..].find("*/").map_or(rest.len(), |e| start + 2 + e + 2)
        } else {
            rest[start..].find('\n').map_or(rest.len(), |e| start + e)
        };
        out.extend(rest[start..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The function a line declares, if it starts (in column 0) with `<type> MPI_Name(`: the type is words and stars,
/// the parameters may go on over further lines. Typedefs, macros and indented lines declare nothing.
fn declared_name(line: &str) -> Option<&str> {
    if !line.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') || line.starts_with("typedef") {
        return None;
    }
    let head = line.split_once('(')?.0.trim_end();
    if !head.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ' || c == '*') {
        return None;
    }
    let name = &head[head.rfind([' ', '*'])? + 1..];
    name.starts_with("MPI_").then_some(name)
}

/// The MPI_ functions a C header declares, in order.
fn declared_functions(source: &str) -> Vec<String> {
    strip_comments(source).lines().filter_map(declared_name).map(str::to_string).collect()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The list of MPI 3.1 functions; it must be sorted (byte order), without repeats, one MPI_ name a line.
fn mpi31_functions() -> Vec<String> {
    let names: Vec<String> = read(LIST).lines().map(str::to_string).collect();
    let malformed: Vec<&String> = names
        .iter()
        .filter(|n| !n.starts_with("MPI_") || !n[4..].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    assert!(malformed.is_empty(), "{LIST}: lines that are not MPI_ names: {malformed:?}");
    let unsorted: Vec<String> =
        names.windows(2).filter(|w| w[0] >= w[1]).map(|w| format!("{} before {}", w[0], w[1])).collect();
    assert!(unsorted.is_empty(), "{LIST} must be sorted, without repeats:\n{}", unsorted.join("\n"));
    names
}

/// Each header's declared MPI_ functions.
fn header_declarations() -> Vec<(&'static str, Vec<String>)> {
    HEADERS.iter().map(|h| (*h, declared_functions(&read(h)))).collect()
}

/// Every MPI_ function the two headers declare, sorted.
fn all_declared() -> Vec<String> {
    let names: BTreeSet<String> = header_declarations().into_iter().flat_map(|(_, names)| names).collect();
    names.into_iter().collect()
}

#[test]
fn the_declaration_parser_finds_functions_and_nothing_else() {
    let source = "/* int MPI_In_a_comment(void);\n   int MPI_Still_in_it(void); */\n\
                  // int MPI_In_a_line_comment(void);\n\
                  typedef int MPI_Callback_type(int x);\n\
                  #define MPI_Macro(x) (x)\n\
                  int MPI_One(int a,\n            int b);\n\
                  MPI_Aint MPI_Two(MPI_Aint a); /* int MPI_Trailing_comment(void); */\n\
                  double MPI_Three (void);\n\
                  struct thing *MPI_Four(void);\n\
                  \x20   int MPI_Indented(void);\n\
                  int nocmsg_other(void);\n\
                  MPI_Not_declared(x);\n";
    assert_eq!(declared_functions(source), ["MPI_One", "MPI_Two", "MPI_Three", "MPI_Four"]);
}

#[test]
fn every_mpi31_function_is_declared_in_exactly_one_header_and_nothing_else_is() {
    let listed: BTreeSet<String> = mpi31_functions().into_iter().collect();
    let removed: BTreeSet<String> = read(REMOVED).lines().map(str::to_string).collect();
    let headers = header_declarations();
    let mut where_declared: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (header, names) in &headers {
        for name in names {
            where_declared.entry(name.as_str()).or_default().push(header);
        }
    }
    let mut problems = Vec::new();
    let missing: Vec<&str> =
        listed.iter().chain(&removed).map(String::as_str).filter(|n| !where_declared.contains_key(n)).collect();
    if !missing.is_empty() {
        problems.push(format!("{} MPI 3.1 functions declared in neither header: {}", missing.len(), missing.join(" ")));
    }
    for (name, places) in &where_declared {
        if places.len() > 1 {
            problems.push(format!("{name} declared more than once: in {}", places.join(" and ")));
        }
        if removed.contains(*name) {
            if places != &["lib/include/mpi.h"] {
                problems.push(format!("{name}, removed in MPI-3.0, must be declared in mpi.h only: in {}", places.join(", ")));
            }
            if listed.contains(*name) {
                problems.push(format!("{name} is both in {LIST} and in {REMOVED}"));
            }
        } else if !listed.contains(*name) {
            problems.push(format!("{name} (in {}) is not an MPI 3.1 function of {LIST}", places.join(", ")));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let counts: Vec<String> = headers.iter().map(|(h, names)| format!("{h}: {}", names.len())).collect();
    eprintln!("{} MPI 3.1 functions; {}", listed.len(), counts.join(", "));
}

/// The names in `undefined reference to `MPI_...'` lines of GNU ld's output, sorted.
fn undefined_references(linker_output: &str) -> BTreeSet<String> {
    const MARK: &str = "undefined reference to `";
    linker_output
        .match_indices(MARK)
        .filter_map(|(at, _)| {
            let rest = &linker_output[at + MARK.len()..];
            rest.find('\'').map(|end| rest[..end].to_string())
        })
        .filter(|name| name.starts_with("MPI_"))
        .collect()
}

#[test]
fn undefined_references_are_read_from_linker_output() {
    let output = "/usr/bin/ld: /tmp/cc.o: in function `main':\n\
                  t.c:(.text+0x1): undefined reference to `MPI_Win_fence'\n\
                  /usr/bin/ld: t.c:(.data.rel.ro+0x8): undefined reference to `MPI_Send'\n\
                  /usr/bin/ld: t.c:(.text+0x9): undefined reference to `MPI_Win_fence'\n\
                  /usr/bin/ld: t.c:(.text+0x9): undefined reference to `sqrt'\n\
                  collect2: error: ld returned 1 exit status\n";
    assert_eq!(undefined_references(output), BTreeSet::from(["MPI_Send".to_string(), "MPI_Win_fence".to_string()]));
}

/// A C program that takes the address of every function in `names` (so each must be defined for it to link) and
/// prints how many there are.
fn address_table_program(names: &[String]) -> String {
    let mut c = String::from(
        "/* Generated by crates/cli/tests/mpi_api.rs: the address of every function mpi.h declares. */\n\
         #include <mpi.h>\n#include <stdio.h>\n\nvoid (*const table[])(void) = {\n",
    );
    for name in names {
        c.push_str(&format!("    (void (*)(void)){name},\n"));
    }
    c.push_str("};\n\nint main(void)\n{\n    printf(\"%zu\\n\", sizeof table / sizeof table[0]);\n    return 0;\n}\n");
    c
}

/// Compiles and links C sources with one of the wrappers in bin/; on failure, the test fails with the MPI functions
/// the linker found undefined, or else with the whole output.
fn build(wrapper: &str, sources: &[&Path], out: &Path) {
    build_for(wrapper, &[], sources, out)
}

/// build, with arguments for the wrapper first (`--chip mpb-2x2`: the MPB port).
fn build_for(wrapper: &str, wrapper_args: &[&str], sources: &[&Path], out: &Path) {
    let result = Command::new(root().join("bin").join(wrapper))
        .args(wrapper_args)
        .args(["-O0", "-g"])
        .args(sources)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap_or_else(|e| panic!("{wrapper}: cannot start: {e}"));
    if result.status.success() {
        return;
    }
    let undefined = undefined_references(&text(&result.stderr));
    assert!(
        undefined.is_empty(),
        "{wrapper}: {} MPI functions are declared but not defined:\n{}",
        undefined.len(),
        undefined.iter().cloned().collect::<Vec<_>>().join("\n")
    );
    panic!("{wrapper} {} failed\n{}", out.display(), show(&result));
}

fn link_every_declared_function(wrapper: &str, out_name: &str) -> PathBuf {
    link_every_declared_function_for(wrapper, &[], out_name)
}

fn link_every_declared_function_for(wrapper: &str, wrapper_args: &[&str], out_name: &str) -> PathBuf {
    let names = all_declared();
    let dir = scratch(&format!("mpi-api-{out_name}"));
    let source = dir.join("table.c");
    std::fs::write(&source, address_table_program(&names)).unwrap();
    let out = dir.join(out_name);
    build_for(wrapper, wrapper_args, &[&source], &out);
    out
}

#[test]
fn every_declared_function_links_natively() {
    let program = link_every_declared_function("nocmsg-cc-native", "table");
    let out = Command::new(&program).output().expect("the table program runs");
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(text(&out.stdout).trim(), all_declared().len().to_string(), "{}", show(&out));
}

#[test]
fn every_declared_function_links_for_the_simulator() {
    link_every_declared_function("nocmsg-cc", "table.elf");
}

#[test]
fn every_declared_function_links_for_the_mpb_port() {
    link_every_declared_function_for("nocmsg-cc", &["--chip", "mpb-2x2"], "table-mpb.elf");
}

/// Calls unsupported functions under MPI_ERRORS_RETURN, and a predefined callback that is real.
const ERRORS_RETURN_C: &str = r#"
#include <mpi.h>
#include <stdio.h>

static void report(const char *name, int code)
{
    if (code == MPI_ERR_UNSUPPORTED_OPERATION)
        printf("%s: MPI_ERR_UNSUPPORTED_OPERATION\n", name);
    else
        printf("%s: returned %d\n", name, code);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_File file = MPI_FILE_NULL;
    MPI_Info info = MPI_INFO_NULL;
    report("MPI_Win_fence", MPI_Win_fence(0, MPI_WIN_NULL));
    report("MPI_File_close", MPI_File_close(&file));
    report("MPI_Info_create", MPI_Info_create(&info));
    printf("MPI_Win_c2f: %d\n", (int)MPI_Win_c2f(MPI_WIN_NULL));
    int value = 42, *copy = NULL, flag = 0;
    int code = MPI_TYPE_DUP_FN(MPI_INT, 0, NULL, &value, &copy, &flag);
    printf("MPI_TYPE_DUP_FN: code %d, flag %d, %s\n", code, flag, copy == &value ? "same value" : "other value");
    MPI_Finalize();
    return 0;
}
"#;

const ERRORS_RETURN_OUTPUT: &str = "MPI_Win_fence: MPI_ERR_UNSUPPORTED_OPERATION\n\
                                    MPI_File_close: MPI_ERR_UNSUPPORTED_OPERATION\n\
                                    MPI_Info_create: MPI_ERR_UNSUPPORTED_OPERATION\n\
                                    MPI_Win_c2f: 0\n\
                                    MPI_TYPE_DUP_FN: code 0, flag 1, same value\n";

/// Calls an unsupported function under the default handler (MPI_ERRORS_ARE_FATAL): the run must stop there.
const FATAL_C: &str = r#"
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Win win;
    MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    printf("MPI_Win_create returned\n");
    MPI_Finalize();
    return 0;
}
"#;

struct Programs {
    native: BTreeMap<&'static str, PathBuf>,
    sim: BTreeMap<&'static str, PathBuf>,
}

/// Builds the two programs once per test run, natively and for the simulator.
fn programs() -> &'static Programs {
    static PROGRAMS: OnceLock<Programs> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let dir = scratch("mpi-api-programs");
        let mut programs = Programs { native: BTreeMap::new(), sim: BTreeMap::new() };
        for (name, source) in [("errors_return", ERRORS_RETURN_C), ("fatal", FATAL_C)] {
            let c = dir.join(format!("{name}.c"));
            std::fs::write(&c, source).unwrap();
            let native = dir.join(name);
            build("nocmsg-cc-native", &[&c], &native);
            programs.native.insert(name, native);
            let elf = dir.join(format!("{name}.elf"));
            build("nocmsg-cc", &[&c], &elf);
            programs.sim.insert(name, elf);
        }
        programs
    })
}

fn nocmsg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nocmsg")).args(args).current_dir(root()).output().expect("nocmsg runs")
}

fn run_native(name: &str) -> Output {
    let program = programs().native[name].display().to_string();
    nocmsg(&["native", "-n", "1", "--timeout", "60", &program])
}

fn run_simulated(name: &str) -> Output {
    let program = programs().sim[name].display().to_string();
    nocmsg(&["run", "--chip", &chip("pimp-2x2"), "-n", "1", "--no-prefix", "--max-cycles", "1000000000", &program])
}

/// A run's output split into the program's own lines and the library's messages (lines starting "nocmsg: "), which
/// are on stderr natively but on the console's stdout on the simulator, where picolibc's semihosted stdio has one
/// stream for stdout and stderr.
fn program_and_messages(out: &Output) -> (String, String) {
    let stdout = text(&out.stdout);
    let (messages, program): (Vec<&str>, Vec<&str>) = stdout.lines().partition(|l| l.starts_with("nocmsg: "));
    let program: String = program.iter().map(|l| format!("{l}\n")).collect();
    (program, format!("{}\n{}", messages.join("\n"), text(&out.stderr)))
}

fn check_errors_return(out: &Output, what: &str) {
    assert!(out.status.success(), "{what}\n{}", show(out));
    let (program, messages) = program_and_messages(out);
    assert_eq!(program, ERRORS_RETURN_OUTPUT, "{what}\n{}", show(out));
    for name in ["MPI_Win_fence", "MPI_File_close", "MPI_Info_create", "MPI_Win_c2f"] {
        let message = format!("nocmsg: {name} is not supported (docs/mpi.md lists what is)");
        assert!(messages.contains(&message), "{what}: no {message:?}\n{}", show(out));
    }
}

fn check_fatal(out: &Output, what: &str) {
    assert!(!out.status.success(), "{what}: the run should have failed\n{}", show(out));
    let (program, messages) = program_and_messages(out);
    assert!(!program.contains("MPI_Win_create returned"), "{what}: it went on\n{}", show(out));
    let message = "nocmsg: MPI_Win_create is not supported (docs/mpi.md lists what is)";
    assert!(messages.contains(message), "{what}: no {message:?}\n{}", show(out));
}

#[test]
fn unsupported_functions_return_the_error_under_errors_return_natively() {
    check_errors_return(&run_native("errors_return"), "native, 1 rank");
}

#[test]
fn unsupported_functions_return_the_error_under_errors_return_on_the_simulator() {
    check_errors_return(&run_simulated("errors_return"), "pimp-2x2, 1 core");
}

#[test]
fn an_unsupported_function_stops_the_program_by_default_natively() {
    check_fatal(&run_native("fatal"), "native, 1 rank");
}

#[test]
fn an_unsupported_function_stops_the_program_by_default_on_the_simulator() {
    check_fatal(&run_simulated("fatal"), "pimp-2x2, 1 core");
}
