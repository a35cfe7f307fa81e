//! What a practitioner sees fits where it is: the Validation tables show
//! their figures and errors at 1440 px without scrolling sideways; on a
//! phone (390 px) the schedule comparison's select stays inside its card.

use plan3d_e2e::{artifact, dist, serve, webdriver::Browser, WAIT};

#[test]
fn validation_tables_fit_a_desktop() {
    let base = serve(dist(), "/");
    let b = Browser::start(1440, 1000);
    b.goto(&format!(
        "{base}?model=llama-3.1-405b&gpu=h100-sxm&node=8&gpus=16384"
    ));
    b.wait(
        "return document.querySelector('[data-testid=validation]');",
        WAIT,
    );
    let hit = b.click("[data-testid=validation] summary");
    assert!(hit == "summary" || hit == "h2", "the click landed on {hit}");
    b.wait(
        "return document.querySelector('[data-testid=validation]').open;",
        WAIT,
    );
    let tables = b.exec(
        "return [...document.querySelectorAll('[data-testid=validation] .p3-scroll')].map(s =>
             [s.scrollWidth, s.clientWidth, s.querySelector('th:last-child').getBoundingClientRect().right,
              s.getBoundingClientRect().right]);",
        &[],
    );
    let tables = tables.as_array().unwrap();
    assert!(tables.len() >= 2, "{tables:?}");
    for t in tables {
        let v: Vec<f64> = t
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(
            v[0] <= v[1] + 1.0,
            "a validation table is {} px wide in {} px: {v:?}",
            v[0],
            v[1]
        );
        assert!(
            v[2] <= v[3] + 1.0,
            "the error column ends at {} past {}: {v:?}",
            v[2],
            v[3]
        );
    }
    b.screenshot(&artifact("validation-1440"));
}

#[test]
fn the_comparison_select_stays_in_its_card_on_a_phone() {
    let base = serve(dist(), "/");
    let b = Browser::start(390, 900);
    b.goto(&format!("{base}?assume=paper&model=gpt-3"));
    b.wait("return document.querySelector('[data-testid=cmp]');", WAIT);
    b.scroll_into_view("cmp");
    let v = b.exec(
        "const s = document.querySelector('[data-testid=cmp]').getBoundingClientRect();
         const c = document.querySelector('[data-testid=cmp]').closest('.p3-card').getBoundingClientRect();
         return [s.right, c.right, innerWidth];",
        &[],
    );
    let v: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        v[0] <= v[1] && v[1] <= v[2],
        "select ends at {}, card at {}, screen {}",
        v[0],
        v[1],
        v[2]
    );
}
