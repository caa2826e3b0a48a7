//! The pages' HTML, style sheets and scripts, kept as files under `assets/` and put
//! together here: a page's `@STYLE@` and `@SCRIPT@` become its style sheet and its script.

use std::sync::LazyLock;

/// The preview page (`/`) around its fragment: what comes before it and what comes after.
pub(super) static PREVIEW: LazyLock<(String, String)> = LazyLock::new(|| {
    let page = inline(
        include_str!("assets/preview.html"),
        include_str!("assets/preview.css"),
        include_str!("assets/preview.js"),
    );
    let (head, tail) = page.split_once("@MAIN@").expect("preview.html has a @MAIN@");
    (head.to_string(), tail.to_string())
});

/// The game page (`/play`), its `@TITLE@` and `@PACKS@` still to fill.
pub(super) static PLAY: LazyLock<String> = LazyLock::new(|| {
    inline(include_str!("assets/play.html"), include_str!("assets/play.css"), include_str!("assets/play.js"))
});

/// A page with its style sheet and script put in (without their last line break).
fn inline(html: &str, css: &str, js: &str) -> String {
    html.replacen("@STYLE@", css.trim_end(), 1).replacen("@SCRIPT@", js.trim_end(), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_have_their_style_and_script_and_only_the_tokens_filled_at_run_time() {
        let (head, tail) = &*PREVIEW;
        assert!(head.contains("<style>\nbody {") && head.ends_with("<main id=\"main\">\n"));
        assert!(
            tail.starts_with("</main>\n<script>\nwindow.crownLoads") && tail.ends_with("</script></body></html>\n")
        );
        assert!(!format!("{head}{tail}").contains('@'));
        assert!(PLAY.contains("<style>\nbody {") && PLAY.contains("<script>\nconst PACKS = @PACKS@;"));
        assert_eq!(PLAY.matches('@').count(), 4, "only @TITLE@ and @PACKS@ are left");
    }
}
