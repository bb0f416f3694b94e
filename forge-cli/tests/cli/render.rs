//! `forge render` and `forge review` run the `forge-render` program with their arguments as
//! given and end with its exit status, `forge edit` the `forge-edit` program; without it they
//! say how to get it.

use std::process::Command;

use super::FORGE;

#[cfg(unix)]
#[test]
fn render_and_review_pass_their_arguments_to_forge_render_and_its_status_back() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // A stand-in `forge-render`: records its arguments, exits 7.
    let fake = dir.path().join("forge-render");
    let log = dir.path().join("args.txt");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nprintf '%s|' \"$@\" >> '{}'\necho >> '{}'\nexit 7\n",
            log.display(),
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    for args in [
        &["render", "a.forge.ron", "--out", "a.png", "--size", "64x32"][..],
        &[
            "review", "--git", "main", "HEAD", "--out", "review", "--help",
        ][..],
    ] {
        let out = Command::new(FORGE)
            .args(args)
            .env("FORGE_RENDER", &fake)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(7), "{out:?}");
    }
    let seen = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        seen,
        "render|a.forge.ron|--out|a.png|--size|64x32|\nreview|--git|main|HEAD|--out|review|--help|\n"
    );
}

#[test]
fn without_forge_render_the_command_says_how_to_get_it() {
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(FORGE)
        .args(["render", "a.forge.ron", "--out", "a.png"])
        .env("FORGE_RENDER", "")
        .env("PATH", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`forge render` is run by the `forge-render` program, which was not found"),
        "{err}"
    );
    assert!(
        err.contains("cargo install --path forge-render --ignore-rust-version"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn edit_passes_its_arguments_to_forge_edit_and_its_status_back() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("forge-edit");
    let log = dir.path().join("args.txt");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nprintf '%s|' \"$@\" > '{}'\nexit 3\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(FORGE)
        .args(["edit", "level.forge.ron", "--assets", "assets", "--help"])
        .env("FORGE_EDIT", &fake)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "level.forge.ron|--assets|assets|--help|"
    );
    // Without it: how to get it.
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(FORGE)
        .args(["edit", "level.forge.ron"])
        .env("FORGE_EDIT", "")
        .env("PATH", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`forge edit` is run by the `forge-edit` program"),
        "{err}"
    );
    assert!(
        err.contains("cargo install --path forge-editor --ignore-rust-version"),
        "{err}"
    );
}
