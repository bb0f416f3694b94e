//! Field expressions: every supported form on a field of the matching type, and the refusals.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bevy_color::Color;
use bevy_forge_scene::schema::expr::{ExprError, assign, evaluate, evaluate_schema, render};
use bevy_forge_scene::schema::kind_of;
use bevy_math::{EulerRot, Quat, Vec2, Vec3, Vec4};
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::{FromReflect, PartialReflect, Reflect, TypeInfo, TypeRegistry, Typed};
use proptest::prelude::*;

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Default)]
enum Shape {
    #[default]
    Point,
    Circle(f32),
    Rect {
        w: f32,
        h: f32,
    },
}

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Default)]
struct Stats {
    hp: u32,
    speed: f32,
    name: String,
}

#[derive(Reflect, Default, Clone, Debug, PartialEq)]
struct Pair(i32, bool);

fn registry() -> TypeRegistry {
    let mut r = TypeRegistry::default();
    r.register::<Shape>();
    r.register::<Stats>();
    r.register::<Pair>();
    r
}

/// Evaluates `text` as a `T` and converts the result to a concrete `T`.
fn eval<T: Typed + FromReflect + Default + PartialReflect>(text: &str) -> Result<T, ExprError> {
    let value = evaluate(text, T::type_info(), &registry())?;
    let mut out = T::default();
    assign(&mut out, value.as_ref()).unwrap();
    Ok(out)
}

fn err<T: Typed + FromReflect + Default + PartialReflect>(text: &str) -> ExprError {
    match eval::<T>(text) {
        Ok(_) => panic!("`{text}` should fail"),
        Err(e) => e,
    }
}

#[test]
fn integer_literals_with_underscores_suffixes_and_radix() {
    assert_eq!(eval::<u32>("10"), Ok(10));
    assert_eq!(eval::<u32>("1_000"), Ok(1000));
    assert_eq!(eval::<u8>("10u8"), Ok(10));
    assert_eq!(eval::<i64>("-42"), Ok(-42));
    assert_eq!(eval::<u16>("0xff"), Ok(255));
    assert_eq!(eval::<i8>("-128"), Ok(-128));
    assert_eq!(eval::<u64>("u64::MAX"), Ok(u64::MAX));
    assert_eq!(eval::<usize>(" 7 "), Ok(7));
}

#[test]
fn integer_refusals_say_what_was_expected() {
    let e = err::<u32>("1.5");
    assert_eq!(e.to_string(), "expected an integer (u32), found a float");
    assert_eq!(e.at(), 0);
    assert!(matches!(err::<u8>("256"), ExprError::Overflow { .. }));
    assert!(matches!(err::<u32>("-1"), ExprError::Overflow { .. }));
    // rustc negates no unsigned integer, zero included.
    for text in ["-0", "-0u8", "-(0)"] {
        assert_eq!(
            err::<u8>(text).to_string(),
            "-0 does not fit in u8",
            "{text}"
        );
    }
    assert_eq!(eval::<i8>("-0"), Ok(0));
    // Any depth of parentheses after the minus, as rustc reads it.
    assert_eq!(eval::<i8>("-((5))"), Ok(-5));
    assert_eq!(err::<u8>("-((0))").to_string(), "-0 does not fit in u8");
    // Other suffixes are named as written.
    assert_eq!(
        err::<f32>("5i32").to_string(),
        "expected a float (f32), found an `i32` literal"
    );
    assert_eq!(
        err::<f32>("1.5f16").to_string(),
        "expected a float (f32), found an `f16` literal"
    );
    assert_eq!(
        err::<u32>("7u8").to_string(),
        "expected an integer (u32), found a `u8` literal"
    );
    assert_eq!(
        err::<u32>("10u8").to_string(),
        "expected an integer (u32), found a `u8` literal"
    );
    assert_eq!(
        err::<i32>("\"7\"").to_string(),
        "expected an integer (i32), found a string"
    );
}

#[test]
fn float_literals_constants_and_a_leading_minus() {
    assert_eq!(eval::<f32>("2.0"), Ok(2.0));
    assert_eq!(eval::<f32>("-0.5"), Ok(-0.5));
    assert_eq!(eval::<f32>("1e3"), Ok(1000.0));
    assert_eq!(eval::<f32>("2.0f32"), Ok(2.0));
    assert_eq!(eval::<f64>("3"), Ok(3.0));
    assert_eq!(eval::<f32>("1_000.5"), Ok(1000.5));
    assert_eq!(eval::<f32>("f32::consts::PI"), Ok(std::f32::consts::PI));
    assert_eq!(
        eval::<f32>("std::f32::consts::TAU"),
        Ok(std::f32::consts::TAU)
    );
    assert_eq!(
        eval::<f64>("-core::f64::consts::FRAC_PI_2"),
        Ok(-std::f64::consts::FRAC_PI_2)
    );
    assert_eq!(eval::<f32>("f32::INFINITY"), Ok(f32::INFINITY));
    assert_eq!(eval::<f32>("90f32.to_radians()"), Ok(90f32.to_radians()));
    assert_eq!(eval::<f32>("(1.5)"), Ok(1.5));
}

/// `to_radians` and `to_degrees` on an `f32` convert in `f32`, as rustc does: through `f64`
/// many results differ in the last bit.
#[test]
fn f32_angle_conversions_match_rustc_bit_for_bit() {
    for i in 0..2000 {
        let v = i as f32 * 0.37 - 300.0;
        let text = format!("{v:?}f32");
        let radians = eval::<f32>(&format!("{text}.to_radians()")).unwrap();
        assert_eq!(radians.to_bits(), v.to_radians().to_bits(), "{text}");
        let degrees = eval::<f32>(&format!("({text}).to_degrees()")).unwrap();
        assert_eq!(degrees.to_bits(), v.to_degrees().to_bits(), "{text}");
    }
    assert_eq!(
        eval::<f32>("2.59f32.to_radians()").map(f32::to_bits),
        Ok(2.59f32.to_radians().to_bits())
    );
    assert_eq!(eval::<f64>("90.0.to_radians()"), Ok(90f64.to_radians()));
}

/// A float literal's suffix names the field's float type or nothing, as rustc requires.
#[test]
fn float_suffixes_must_name_the_target_type() {
    assert_eq!(eval::<f32>("5f32"), Ok(5.0));
    assert_eq!(eval::<f64>("2.5f64"), Ok(2.5));
    assert_eq!(eval::<f64>("-1e2"), Ok(-100.0));
    let cases: [(Result<(), ExprError>, &str); 5] = [
        (eval::<f32>("5f64").map(drop), "expected a float (f32)"),
        (eval::<f32>("-1.5f64").map(drop), "expected a float (f32)"),
        (eval::<f64>("0.5f32").map(drop), "expected a float (f64)"),
        (
            eval::<f64>("90f32.to_radians()").map(drop),
            "expected a float (f64)",
        ),
        (
            eval::<Vec3>("Vec3::new(1.0, 2f64, 3.0)").map(drop),
            "expected a float argument for a Vec3",
        ),
    ];
    for (result, expected) in cases {
        let message = result.unwrap_err().to_string();
        assert!(message.starts_with(expected), "{message}");
        let found = if expected.contains("f32") {
            "f64"
        } else {
            "f32"
        };
        let found = if expected.contains("Vec3") {
            "f64"
        } else {
            found
        };
        assert!(
            message.ends_with(&format!(", found an `{found}` literal")),
            "{message}"
        );
    }
}

#[test]
fn bools_chars_and_strings_with_escapes() {
    assert_eq!(eval::<bool>("true"), Ok(true));
    assert_eq!(eval::<bool>("false"), Ok(false));
    assert_eq!(eval::<char>("'x'"), Ok('x'));
    assert_eq!(eval::<char>("'\\n'"), Ok('\n'));
    assert_eq!(eval::<String>("\"plain\""), Ok("plain".into()));
    assert_eq!(
        eval::<String>(r#""tab\t quote\" unicode\u{e9} nl\n""#),
        Ok("tab\t quote\" unicodeé nl\n".into())
    );
    assert_eq!(
        eval::<String>(r##"r#"raw "quoted""#"##),
        Ok("raw \"quoted\"".into())
    );
    assert_eq!(eval::<String>("String::from(\"a\")"), Ok("a".into()));
    assert_eq!(eval::<String>("\"b\".into()"), Ok("b".into()));
    assert_eq!(eval::<String>("\"c\".to_string()"), Ok("c".into()));
    assert_eq!(eval::<String>("\"d\".to_owned()"), Ok("d".into()));
    assert_eq!(eval::<String>("String::new()"), Ok(String::new()));
    assert_eq!(
        err::<bool>("1").to_string(),
        "expected a boolean, found an integer"
    );
}

#[test]
fn options_tuples_arrays_and_vecs() {
    assert_eq!(eval::<Option<f32>>("None"), Ok(None));
    assert_eq!(eval::<Option<f32>>("Some(2.5)"), Ok(Some(2.5)));
    assert_eq!(eval::<Option<Vec3>>("Some(Vec3::Y)"), Ok(Some(Vec3::Y)));
    assert_eq!(
        eval::<Option<String>>("Some(\"x\".into())"),
        Ok(Some("x".into()))
    );
    assert_eq!(eval::<(u32, bool)>("(3, true)"), Ok((3, true)));
    assert_eq!(eval::<[f32; 3]>("[1.0, 2.0, 3.0]"), Ok([1.0, 2.0, 3.0]));
    assert_eq!(eval::<Vec<u8>>("vec![1, 2, 3]"), Ok(vec![1, 2, 3]));
    assert_eq!(eval::<Vec<u8>>("[4, 5]"), Ok(vec![4, 5]));
    assert_eq!(eval::<Vec<u8>>("vec![]"), Ok(vec![]));
    assert_eq!(eval::<Vec<u8>>("Vec::new()"), Ok(vec![]));
    assert_eq!(
        eval::<Vec<Option<i32>>>("vec![Some(-1), None]"),
        Ok(vec![Some(-1), None])
    );
    assert!(matches!(
        err::<[f32; 3]>("[1.0, 2.0]"),
        ExprError::Mismatch { .. }
    ));
    assert!(matches!(
        err::<Option<f32>>("Some(\"a\")"),
        ExprError::Mismatch { at: 5, .. }
    ));
}

#[test]
fn glam_constants_and_constructors() {
    assert_eq!(eval::<Vec3>("Vec3::Y"), Ok(Vec3::Y));
    assert_eq!(eval::<Vec3>("Vec3::ZERO"), Ok(Vec3::ZERO));
    assert_eq!(eval::<Vec3>("glam::Vec3::NEG_Z"), Ok(Vec3::NEG_Z));
    assert_eq!(
        eval::<Vec3>("Vec3::new(1.0, -2.0, 3)"),
        Ok(Vec3::new(1.0, -2.0, 3.0))
    );
    assert_eq!(eval::<Vec3>("Vec3::splat(0.5)"), Ok(Vec3::splat(0.5)));
    assert_eq!(
        eval::<Vec3>("Vec3 { x: 1.0, y: 2.0, z: 3.0 }"),
        Ok(Vec3::new(1.0, 2.0, 3.0))
    );
    assert_eq!(eval::<Vec2>("Vec2::new(1.0, 2.0)"), Ok(Vec2::new(1.0, 2.0)));
    assert_eq!(eval::<Vec4>("Vec4::W"), Ok(Vec4::W));
    assert_eq!(eval::<Quat>("Quat::IDENTITY"), Ok(Quat::IDENTITY));
    assert_eq!(
        eval::<Quat>("Quat::from_rotation_y(1.0)"),
        Ok(Quat::from_rotation_y(1.0))
    );
    assert_eq!(
        eval::<Quat>("Quat::from_rotation_x(-0.5)"),
        Ok(Quat::from_rotation_x(-0.5))
    );
    assert_eq!(
        eval::<Quat>("Quat::from_rotation_z(f32::consts::PI)"),
        Ok(Quat::from_rotation_z(std::f32::consts::PI))
    );
    assert_eq!(
        eval::<Quat>("Quat::from_euler(EulerRot::XYZ, 0.1, 0.2, 0.3)"),
        Ok(Quat::from_euler(EulerRot::XYZ, 0.1, 0.2, 0.3))
    );
    assert_eq!(
        err::<Vec3>("Vec2::new(1.0, 2.0)").to_string(),
        "expected a Vec3 (`Vec3::new(..)`, `Vec3::splat(v)` or a constant like `Vec3::ZERO`), found `Vec2::new(..)`"
    );
    assert!(matches!(
        err::<Vec3>("Vec3::new(1.0, 2.0)"),
        ExprError::Mismatch { .. }
    ));
    assert!(matches!(
        err::<Vec3>("Vec3::UP"),
        ExprError::Unsupported { .. }
    ));
    assert!(matches!(
        err::<Vec2>("Vec2::Z"),
        ExprError::Unsupported { .. }
    ));
}

#[test]
fn colours() {
    assert_eq!(
        eval::<Color>("Color::srgb(1.0, 0.5, 0.0)"),
        Ok(Color::srgb(1.0, 0.5, 0.0))
    );
    assert_eq!(
        eval::<Color>("Color::srgba(1.0, 0.5, 0.0, 0.5)"),
        Ok(Color::srgba(1.0, 0.5, 0.0, 0.5))
    );
    assert_eq!(
        eval::<Color>("Color::linear_rgb(0.2, 0.3, 0.4)"),
        Ok(Color::linear_rgb(0.2, 0.3, 0.4))
    );
    assert_eq!(eval::<Color>("Color::WHITE"), Ok(Color::WHITE));
    assert_eq!(eval::<Color>("Color::BLACK"), Ok(Color::BLACK));
    assert_eq!(eval::<Color>("Color::NONE"), Ok(Color::NONE));
    assert_eq!(
        eval::<Color>("Color::srgb_u8(255, 0, 128)"),
        Ok(Color::srgb_u8(255, 0, 128))
    );
    // Every colour space's constructor, the colour kept in its space.
    assert_eq!(
        eval::<Color>("Color::hsla(200.0, 0.5, 0.25, 0.5)"),
        Ok(Color::hsla(200.0, 0.5, 0.25, 0.5))
    );
    assert_eq!(
        eval::<Color>("Color::oklch(0.7, 0.1, 120.0)"),
        Ok(Color::oklch(0.7, 0.1, 120.0))
    );
    assert!(matches!(
        err::<Color>("Color::srgb_from_array([1.0, 1.0, 1.0])"),
        ExprError::Unsupported { .. }
    ));
}

#[test]
fn enum_variants_and_struct_literals() {
    assert_eq!(eval::<Shape>("Shape::Point"), Ok(Shape::Point));
    assert_eq!(eval::<Shape>("Point"), Ok(Shape::Point));
    assert_eq!(eval::<Shape>("Shape::Circle(1.0)"), Ok(Shape::Circle(1.0)));
    assert_eq!(
        eval::<Shape>("Shape::Rect { w: 1.0, h: 2.0 }"),
        Ok(Shape::Rect { w: 1.0, h: 2.0 })
    );
    assert_eq!(eval::<Shape>("Default::default()"), Ok(Shape::Point));
    let e = err::<Shape>("Shape::Square");
    assert_eq!(
        e.to_string(),
        "`Shape` has no variant `Square`; its variants are `Point`, `Circle`, `Rect`"
    );
    assert_eq!(
        e.at(),
        "Shape::".len(),
        "at the variant's name, past the enum's path"
    );
    assert_eq!(err::<Shape>("Squar").at(), 0);
    assert!(matches!(
        err::<Shape>("Shape::Rect { w: 1.0 }"),
        ExprError::MissingFields { .. }
    ));
    assert!(matches!(
        err::<Shape>("Other::Point"),
        ExprError::Mismatch { .. }
    ));
    assert_eq!(
        eval::<Stats>("Stats { hp: 3, speed: 1.5, name: \"a\".into() }"),
        Ok(Stats {
            hp: 3,
            speed: 1.5,
            name: "a".into()
        })
    );
    assert_eq!(
        eval::<Stats>("Stats { hp: 3, ..Default::default() }"),
        Ok(Stats {
            hp: 3,
            ..Default::default()
        })
    );
    assert_eq!(
        eval::<Stats>("Stats { speed: 2.0, ..default() }"),
        Ok(Stats {
            speed: 2.0,
            ..Default::default()
        })
    );
    assert_eq!(eval::<Pair>("Pair(-1, true)"), Ok(Pair(-1, true)));
    let unknown = err::<Stats>("Stats { hq: 3, ..default() }");
    assert_eq!(
        unknown.to_string(),
        "`Stats` has no field `hq`; its fields are `hp`, `speed`, `name`"
    );
    assert_eq!(unknown.at(), 8);
    assert_eq!(
        err::<Stats>("Stats { hp: 1.5, ..default() }").to_string(),
        "expected an integer (u32), found a float"
    );
}

#[test]
fn code_is_refused_with_what_was_found() {
    let unsupported = |text: &str| match err::<f32>(text) {
        ExprError::Unsupported { what, .. } => what,
        other => panic!("`{text}`: {other:?}"),
    };
    assert_eq!(unsupported("1.0 + 2.0"), "arithmetic");
    assert_eq!(unsupported("println!(\"hi\")"), "the macro `println!`");
    assert_eq!(unsupported("{ 1.0 }"), "a block");
    assert_eq!(
        unsupported("f32::consts::NOPE"),
        "the unknown constant `f32::consts::NOPE`"
    );
    assert!(matches!(
        err::<f32>("std::process::exit(1)"),
        ExprError::Mismatch { .. }
    ));
    assert!(matches!(
        err::<f32>("some_function()"),
        ExprError::Mismatch { .. }
    ));
    assert!(matches!(err::<f32>("1.0 +"), ExprError::Syntax { .. }));
    assert!(matches!(
        err::<Vec<u8>>("vec![0; 3]"),
        ExprError::Syntax { .. }
    ));
    assert!(matches!(
        err::<String>("format!(\"x\")"),
        ExprError::Unsupported { .. }
    ));
    let deep = format!("{}1.0{}", "(".repeat(100), ")".repeat(100));
    assert!(matches!(err::<f32>(&deep), ExprError::Unsupported { .. }));
}

/// A recursive type: expressions for it nest as deep as they are written.
#[derive(Reflect, Default, Clone, Debug, PartialEq)]
#[reflect(Default, no_field_bounds)]
struct Node {
    children: Vec<Node>,
}

/// Runs `f` on a thread with a `kib` KiB stack; a stack overflow would abort the whole test
/// process, so finishing proves the depth is bounded.
fn on_stack<T: Send + 'static>(kib: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(kib * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// The loader's and the offline outcome of `text` as an `f32`.
fn both_f32(text: &str) -> [Result<(), ExprError>; 2] {
    let kind = kind_of(f32::type_info());
    [
        evaluate(text, f32::type_info(), &registry()).map(|_| ()),
        evaluate_schema(text, "f32", &kind).map(|_| ()),
    ]
}

#[test]
fn deep_nesting_of_any_kind_is_refused_before_it_overflows_the_stack() {
    let n = 100_000;
    let cases = vec![
        format!("{}0.5", "-".repeat(10_000)),
        format!("{}0.5", "-".repeat(n)),
        format!("1.0{}", ".to_radians()".repeat(10_000)),
        format!("{}0.5", "!".repeat(n)),
        format!("{}0.5", "&".repeat(n)),
        format!("{}0.5", "*".repeat(n)),
        format!("{}0.5", "||".repeat(n)),
        format!("{}0.5", "return ".repeat(n)),
        format!("{}1", "if true {1} else ".repeat(10_000)),
        format!("0.5{}", "?".repeat(n)),
        format!("1{}", " as u64".repeat(n)),
        format!("1{}", "+1".repeat(n)),
        format!("x{}", ".a".repeat(n)),
        format!("f{}", "()".repeat(n)),
        format!("{}0.5{}", "(".repeat(n), ")".repeat(n)),
        format!("{}0.5{}", "Some(".repeat(n), ")".repeat(n)),
        format!("{}0.5{}", "vec![".repeat(n), "]".repeat(n)),
        format!("Vec::<{}u8{}>::new()", "Vec<".repeat(n), ">".repeat(n)),
        format!("f::<{}u8>()", "A<x, ".repeat(n)),
    ];
    on_stack(256, move || {
        for text in &cases {
            for result in both_f32(text) {
                match result {
                    Err(ExprError::Unsupported { what, .. })
                        if what == "nesting deeper than 64 levels" => {}
                    other => panic!("`{}..`: {other:?}", &text[..40]),
                }
            }
        }
    });
}

#[test]
fn nesting_up_to_the_limit_is_evaluated_with_a_bounded_stack() {
    // The deepest forms the limit lets through need well under 1 MiB in a debug build.
    on_stack(1024, || {
        let parens = |n: usize| format!("{}0.5{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(both_f32(&parens(64)), [Ok(()), Ok(())]);
        assert_eq!(eval::<f32>(&parens(64)), Ok(0.5));
        assert_eq!(eval::<f32>(&format!("{}0.5", "-".repeat(64))), Ok(0.5));
        assert_eq!(
            eval::<f32>(&format!("{}0.5{}", "-(".repeat(32), ")".repeat(32))),
            Ok(0.5)
        );
        let radians = format!("1.0{}", ".to_radians()".repeat(63));
        assert_eq!(both_f32(&radians), [Ok(()), Ok(())]);
        for result in both_f32(&parens(65)) {
            assert!(
                matches!(&result, Err(ExprError::Unsupported { at: 64, what }) if what == "nesting deeper than 64 levels"),
                "{result:?}"
            );
        }
        // A recursive type, 21 levels of `Node { children: vec![..] }` (3 each).
        let mut tree = "Node { children: vec![] }".to_owned();
        for _ in 0..20 {
            tree = format!("Node {{ children: vec![{tree}] }}");
        }
        let node = eval::<Node>(&tree).unwrap();
        let mut depth = 0;
        let mut at = &node;
        while let Some(child) = at.children.first() {
            depth += 1;
            at = child;
        }
        assert_eq!(depth, 20);
        let deeper = format!("Node {{ children: vec![{tree}] }}");
        assert!(matches!(
            err::<Node>(&deeper),
            ExprError::Unsupported { .. }
        ));
    });
}

#[test]
fn brackets_inside_strings_and_comments_do_not_count_as_nesting() {
    let brackets = "([{".repeat(100);
    let expected = Ok(brackets.clone());
    assert_eq!(eval::<String>(&format!("\"{brackets}\"")), expected);
    assert_eq!(
        eval::<String>(&format!("\"\\\"{brackets}\"")),
        Ok(format!("\"{brackets}"))
    );
    assert_eq!(eval::<String>(&format!("r#\"{brackets}\"#")), expected);
    assert_eq!(
        eval::<String>(&format!(
            "/* {brackets} */ String::from(\"{brackets}\") // {brackets}"
        )),
        expected
    );
    assert_eq!(eval::<char>("'('"), Ok('('));
}

#[test]
fn long_numbers_and_long_expressions_are_refused_quickly() {
    let digits = "1".repeat(100_000);
    let e = err::<u32>(&digits);
    assert_eq!(
        e.to_string(),
        "a number literal longer than 400 characters is not supported in a field expression"
    );
    assert_eq!(e.at(), 0);
    for result in both_f32(&digits) {
        assert!(
            matches!(result, Err(ExprError::Unsupported { .. })),
            "{result:?}"
        );
    }
    let e = err::<Vec<u32>>(&format!("vec![1, {digits}]"));
    assert_eq!(e.at(), 8);
    // 400 characters are still read (and do not fit).
    assert!(matches!(
        err::<u128>(&"9".repeat(400)),
        ExprError::Overflow { .. }
    ));
    let long = format!("vec![{}]", "0, ".repeat(400_000));
    assert_eq!(
        err::<Vec<u8>>(&long).to_string(),
        "an expression longer than 1048576 bytes is not supported in a field expression"
    );
}

#[test]
fn messages_repeat_at_most_the_start_of_long_values() {
    let e = err::<u64>(&"9".repeat(300));
    assert_eq!(
        e.to_string(),
        format!("{}.. does not fit in u64", "9".repeat(40))
    );
    let e = err::<u8>(&format!("-{}", "9".repeat(300)));
    assert!(
        e.to_string().starts_with(&format!("-{}..", "9".repeat(39))),
        "{e}"
    );
    let long_name = "x".repeat(10_000);
    let e = err::<Shape>(&format!("Shape::{long_name}"));
    assert!(e.to_string().len() < 200, "{e}");
    let e = err::<f32>(&format!("{long_name}()"));
    assert!(e.to_string().len() < 200, "{e}");
}

/// An `f32` literal is rounded once, as rustc rounds it, however it is written: bare, in
/// parentheses, negated or suffixed.
#[test]
fn f32_literals_round_as_rustc_rounds_them() {
    let halfway_up = "1.0000000596046447753906250001";
    let expected = 1.000_000_1_f32;
    assert_eq!(expected.to_bits(), 0x3f80_0001);
    for text in [
        halfway_up.to_owned(),
        format!("({halfway_up})"),
        format!("{halfway_up}f32"),
        format!("-(-{halfway_up})"),
    ] {
        assert_eq!(
            eval::<f32>(&text).map(f32::to_bits),
            Ok(0x3f80_0001),
            "{text}"
        );
    }
    // Just above f32::MAX, but rounding to it: rustc accepts it.
    let max_ish = "340282356779733661637539395458142568447";
    for text in [max_ish.to_owned(), format!("({max_ish})")] {
        assert_eq!(eval::<f32>(&text), Ok(f32::MAX), "{text}");
    }
}

#[test]
fn finite_literals_too_large_for_their_float_type_are_refused() {
    assert_eq!(err::<f32>("1e39").to_string(), "1e39 does not fit in f32");
    assert_eq!(err::<f32>("-1e39").to_string(), "-1e39 does not fit in f32");
    assert_eq!(err::<f64>("1e400").to_string(), "1e400 does not fit in f64");
    assert_eq!(err::<f32>("1e400").to_string(), "1e400 does not fit in f32");
    assert_eq!(
        err::<f32>("f64::MAX").to_string(),
        "f64::MAX does not fit in f32"
    );
    assert_eq!(
        err::<Vec3>("Vec3::new(0.0, 1e39, 0.0)").to_string(),
        "1e39 does not fit in f32"
    );
    assert_eq!(err::<Vec3>("Vec3::new(0.0, 1e39, 0.0)").at(), 15);
    assert_eq!(eval::<f32>("3.4e38"), Ok(3.4e38));
    assert_eq!(eval::<f64>("1e300"), Ok(1e300));
    // Infinity and NaN written as such stay allowed.
    assert_eq!(eval::<f32>("f32::INFINITY"), Ok(f32::INFINITY));
    assert_eq!(eval::<f32>("-f32::INFINITY"), Ok(f32::NEG_INFINITY));
    assert_eq!(eval::<f64>("f64::NEG_INFINITY"), Ok(f64::NEG_INFINITY));
    assert!(eval::<f32>("f32::NAN").unwrap().is_nan());
    let kind = kind_of(f32::type_info());
    assert_eq!(
        evaluate_schema("1e39", "f32", &kind).map(|_| ()),
        Err(ExprError::Overflow {
            at: 0,
            value: "1e39".into(),
            ty: "f32".into()
        })
    );
}

#[test]
fn lexical_errors_and_unsupported_forms_are_named() {
    assert_eq!(
        err::<String>("\"abc").to_string(),
        "not a Rust expression: unterminated string: the closing `\"` is missing"
    );
    let e = err::<Vec3>("Vec3::new(１.0, 0.0, 0.0)");
    assert_eq!(
        e.to_string(),
        "not a Rust expression: the character `１` (U+FF11) cannot appear here"
    );
    assert_eq!(e.at(), 10);
    // An escape rustc does not know is named at its backslash; the known ones evaluate.
    let e = err::<String>(r#""esc \q""#);
    assert!(
        e.to_string()
            .starts_with("not a Rust expression: unknown character escape `\\q`: "),
        "{e}"
    );
    assert_eq!(e.at(), 5);
    // A `\x` or `\u` without its digits is named before a later unknown escape.
    let e = err::<String>(r#""a\xyz\q""#);
    assert!(e.to_string().contains("`\\x` needs two hex digits"), "{e}");
    assert_eq!(e.at(), 2);
    let e = err::<String>(r#""\u{zz}\q""#);
    assert!(
        e.to_string().contains("`\\u` needs hex digits in braces"),
        "{e}"
    );
    assert_eq!(e.at(), 1);
    // What follows the backslash is named by code point when it is not printable.
    let e = err::<String>("\"a\\\tb\"");
    assert!(e.to_string().contains("`\\` followed by U+0009"), "{e}");
    let e = err::<String>("\"\\\u{1F600}\"");
    assert!(e.to_string().contains("`\\` followed by U+1F600"), "{e}");
    // Character literals too, and escapes with underscores.
    let e = err::<char>(r"'\q'");
    assert!(
        e.to_string().contains("unknown character escape `\\q`"),
        "{e}"
    );
    assert_eq!(e.at(), 1);
    assert_eq!(eval::<char>(r"'\u{0_0_0_0_4_1}'"), Ok('A'));
    assert_eq!(
        eval::<String>(r#""\u{1_F600}""#),
        Ok("\u{1F600}".to_owned())
    );
    // A carriage return alone, escaped or not, is refused where it is; in a line break it is
    // read as rustc reads source text, the break as `\n`.
    for (text, at) in [("\"a\rb\"", 2), ("\"a\\\rb\"", 3)] {
        let e = err::<String>(text);
        assert!(
            e.to_string().contains("a carriage return (U+000D) alone"),
            "{e}"
        );
        assert_eq!(e.at(), at, "{text:?}");
    }
    assert_eq!(eval::<String>("\"a\r\nb\""), Ok("a\nb".to_owned()));
    // A suffix on a string literal is refused, as rustc refuses it.
    assert_eq!(
        err::<String>(r#""ok"suffix"#).to_string(),
        "expected a string, found a string with the suffix `suffix`"
    );
    assert_eq!(
        eval::<String>(r#""\n\t\\\"\x41\u{e9}\0""#),
        Ok("\n\t\\\"A\u{e9}\0".to_owned())
    );
    assert_eq!(
        err::<u64>("--1").to_string(),
        "negating a negative number (`--`) is not supported in a field expression"
    );
    assert_eq!(
        err::<u64>("-(-1)").to_string(),
        "negating a negative number (`--`) is not supported in a field expression"
    );
    assert_eq!(
        err::<f32>("x = 1.0").to_string(),
        "an assignment is not supported in a field expression"
    );
    assert_eq!(
        err::<f32>("!1.0").to_string(),
        "a `!` (not) is not supported in a field expression"
    );
    for text in [
        "x = 1.0",
        "x?",
        "[1.0; 3]",
        "_",
        "break",
        "x.await",
        "let x = 1",
    ] {
        let message = err::<f32>(text).to_string();
        assert!(
            !message.contains("unsupported expression"),
            "{text}: {message}"
        );
    }
}

#[test]
fn errors_point_inside_the_expression() {
    let e = err::<Vec3>("Vec3::new(1.0, \"y\", 3.0)");
    assert_eq!(e.at(), 15);
    let e = err::<Vec<u32>>("vec![1, 2, 3.5]");
    assert_eq!(e.at(), 11);
}

#[test]
fn rendered_defaults_evaluate_back() {
    fn round_trip<
        T: Typed + FromReflect + Default + PartialReflect + PartialEq + std::fmt::Debug,
    >(
        v: T,
    ) {
        let text = render(&v).unwrap();
        assert_eq!(eval::<T>(&text), Ok(v), "{text}");
    }
    round_trip(1.5f32);
    round_trip(-3i16);
    round_trip(String::from("quote \" and \\ and \n"));
    round_trip('\'');
    round_trip(Vec3::new(1.0, -2.0, 0.25));
    round_trip(Quat::from_rotation_y(0.5));
    round_trip(Color::srgba(0.1, 0.2, 0.3, 0.4));
    round_trip(Some(Shape::Rect { w: 1.0, h: 2.0 }));
    round_trip(Stats {
        hp: 9,
        speed: 0.5,
        name: "n".into(),
    });
    round_trip(vec![Pair(1, false), Pair(-2, true)]);
    round_trip((7u8, 1e-7f64));
}

/// Evaluates `text` as the reflected type `info` and as its schema (offline, as `forge
/// validate --schema` does); describes how the outcomes differ, if they do. The one allowed
/// difference: a schema cannot know whether a nested type has a reflected `Default`.
fn offline_differs(info: &'static TypeInfo, text: &str) -> Option<String> {
    let loaded = evaluate(text, info, &registry());
    let kind = kind_of(info);
    let offline = evaluate_schema(text, info.type_path_table().short_path(), &kind);
    match (&loaded, &offline) {
        (Err(a), Err(b)) if a == b => None,
        (Err(ExprError::Reflect { .. }), Ok(_)) => None,
        (Ok(a), Ok(b)) if a.is_dynamic() || b.is_dynamic() => None,
        (Ok(a), Ok(b)) if a.reflect_partial_eq(b.as_ref()) == Some(true) => None,
        _ => Some(format!(
            "`{text}` as `{}`: loader {loaded:?}, offline {offline:?}",
            info.type_path()
        )),
    }
}

/// Every supported form and every refusal, on the types the other tests use.
fn parity_cases() -> Vec<(&'static TypeInfo, &'static str)> {
    let f32_ = f32::type_info();
    let u32_ = u32::type_info();
    let vec3 = Vec3::type_info();
    let shape = Shape::type_info();
    let stats = Stats::type_info();
    let pair = Pair::type_info();
    vec![
        (u32_, "10"),
        (u32_, "1_000"),
        (u32_, "1.5"),
        (u32_, "-1"),
        (u32_, "10u8"),
        (u32_, "u32::MAX"),
        (u8::type_info(), "256"),
        (i8::type_info(), "-128"),
        (usize::type_info(), "7"),
        (isize::type_info(), "-7isize"),
        (u16::type_info(), "0xff"),
        (f32_, "2.0"),
        (f32_, "-0.5"),
        (f32_, "1e3"),
        (f32_, "2"),
        (f32_, "f32::consts::PI"),
        (f32_, "90f32.to_radians()"),
        (f32_, "true"),
        (f32_, "1.0 + 2.0"),
        (f32_, "println!(\"hi\")"),
        (f32_, "f32::consts::NOPE"),
        (f32_, "some_function()"),
        (f32_, "1.0 +"),
        (f32_, "Default::default()"),
        (f64::type_info(), "f64::INFINITY"),
        (f64::type_info(), "1e400"),
        (f32_, "1e39"),
        (f32_, "-1e39"),
        (f32_, "f64::MAX"),
        (f32_, "--1.0"),
        (f32_, "x = 1.0"),
        (f32_, "\"abc"),
        (f32_, "１"),
        (u32_, "--1"),
        (
            u32_,
            "99999999999999999999999999999999999999999999999999999",
        ),
        (bool::type_info(), "1"),
        (char::type_info(), "'x'"),
        (String::type_info(), "\"a\".into()"),
        (String::type_info(), "String::from(\"b\")"),
        (String::type_info(), "format!(\"x\")"),
        (String::type_info(), "42"),
        (vec3, "Vec3::Y"),
        (vec3, "Vec3::new(1.0, 2.0, 3.0)"),
        (vec3, "Vec3::new(1.0, true, 0.0)"),
        (vec3, "Vec3::new(1.0)"),
        (vec3, "Vec3::W"),
        (vec3, "Vec3 { x: 1.0, y: 2.0, z: 3.0 }"),
        (vec3, "Vec3 { x: 1.0, ..default() }"),
        (vec3, "Vec2::ZERO"),
        (Vec2::type_info(), "Vec2::splat(2.0)"),
        (Vec4::type_info(), "Vec4::ONE"),
        (
            Quat::type_info(),
            "Quat::from_euler(EulerRot::XYZ, 0.1, 0.2, 0.3)",
        ),
        (Quat::type_info(), "Quat::from_axis_angle(Vec3::Y, 1.0)"),
        (Quat::type_info(), "Quat::look_at(1.0)"),
        (Color::type_info(), "Color::srgb(1.0, 0.5, 0.0)"),
        (Color::type_info(), "Color::srgb_u8(255, 0, 300)"),
        (Color::type_info(), "Color::WHITE"),
        (Color::type_info(), "Color::PINK"),
        (<Option<f32>>::type_info(), "Some(1.0)"),
        (<Option<f32>>::type_info(), "None"),
        (<Option<f32>>::type_info(), "Some(1.0, 2.0)"),
        (<Option<f32>>::type_info(), "1.0"),
        (<Option<Vec3>>::type_info(), "Some(Vec3::X)"),
        (<Vec<u32>>::type_info(), "vec![1, 2, 3]"),
        (<Vec<u32>>::type_info(), "vec![1, 2, 3.5]"),
        (<Vec<u32>>::type_info(), "[1, 2]"),
        (<Vec<u8>>::type_info(), "vec![0; 3]"),
        (<Vec<u32>>::type_info(), "Vec::new()"),
        (<[f32; 3]>::type_info(), "[1.0, 2.0, 3.0]"),
        (<[f32; 3]>::type_info(), "[1.0, 2.0]"),
        (<(u32, bool)>::type_info(), "(1, true)"),
        (<(u32, bool)>::type_info(), "(1, 2)"),
        (<(u32, bool)>::type_info(), "1"),
        (shape, "Shape::Point"),
        (shape, "Point"),
        (shape, "Shape::Circle(1.0)"),
        (shape, "Shape::Circle(1.0, 2.0)"),
        (shape, "Shape::Circle"),
        (shape, "Shape::Rect { w: 1.0, h: 2.0 }"),
        (shape, "Shape::Rect { w: 1.0 }"),
        (shape, "Shape::Rect { w: 1.0, d: 2.0 }"),
        (shape, "Shape::Rect { w: 1.0, ..default() }"),
        (shape, "Shape::Rect(1.0, 2.0)"),
        (shape, "Shape::Point { }"),
        (shape, "Shape::Square"),
        (shape, "Other::Point"),
        (shape, "Default::default()"),
        (stats, "Stats { hp: 3, speed: 1.5, name: \"a\".into() }"),
        (stats, "Stats { hp: 3, ..Default::default() }"),
        (stats, "Stats { hq: 3, ..default() }"),
        (stats, "Stats { hp: 1.5, ..default() }"),
        (stats, "Stats { hp: 1 }"),
        (stats, "Stats { hp: 1, ..Stats::new() }"),
        (stats, "Other { hp: 1 }"),
        (stats, "Stats(1, 2.0)"),
        (pair, "Pair(-1, true)"),
        (pair, "Pair(1)"),
        (pair, "Couple(1, true)"),
        (pair, "Default::default()"),
        (<Option<Shape>>::type_info(), "Some(Shape::Circle(2.0))"),
        (
            <Vec<Stats>>::type_info(),
            "vec![Stats { hp: 1, speed: 2.0, name: String::new() }]",
        ),
        (
            <Option<Vec<Pair>>>::type_info(),
            "Some(vec![Pair(1, false), Pair(2, 3)])",
        ),
        (
            <std::collections::HashMap<u32, u32>>::type_info(),
            "HashMap::new()",
        ),
    ]
}

#[test]
fn offline_evaluation_against_a_schema_matches_the_loader() {
    let differences: Vec<String> = parity_cases()
        .into_iter()
        .filter_map(|(info, text)| offline_differs(info, text))
        .collect();
    assert!(differences.is_empty(), "{differences:#?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn evaluation_never_panics_on_arbitrary_text(text in any::<String>()) {
        let r = registry();
        for info in [f32::type_info(), u8::type_info(), String::type_info(), Vec3::type_info(),
                     Shape::type_info(), Stats::type_info(), <Option<Vec<Pair>>>::type_info(), Color::type_info()] {
            let _ = evaluate(&text, info, &r);
        }
    }

    #[test]
    fn evaluation_never_panics_on_expression_like_text(
        text in "[-+*/(){}\\[\\],.:;!'\" a-zA-Z0-9_#]{0,40}"
    ) {
        let r = registry();
        for info in [f32::type_info(), i64::type_info(), Vec3::type_info(), Quat::type_info(),
                     Shape::type_info(), Stats::type_info(), <(u8, bool)>::type_info(), <Vec<Option<f32>>>::type_info()] {
            let _ = evaluate(&text, info, &r);
        }
    }

    #[test]
    fn offline_evaluation_matches_the_loader_on_edited_expressions(
        case in 0usize..1000,
        at in 0usize..64,
        cut in 0usize..4,
        insert in "[-+*(){}\\[\\],.:!'\" a-zA-Z0-9_]{0,6}",
    ) {
        let cases = parity_cases();
        let (info, text) = cases[case % cases.len()];
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + cut).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let edited = format!("{}{insert}{}", &text[..at], &text[end..]);
        let difference = offline_differs(info, &edited);
        prop_assert!(difference.is_none(), "{}", difference.unwrap_or_default());
    }

    #[test]
    fn floats_round_trip_through_render(v in any::<f32>().prop_filter("not NaN", |v| !v.is_nan())) {
        let text = render(&v).unwrap();
        prop_assert_eq!(eval::<f32>(&text), Ok(v));
    }
}
