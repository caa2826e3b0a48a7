//! The cases of the board's functions (spaces, pieces and supplies, regions, `[[board]]`
//! boards and tiles), run with the others of `cases.rs` against its fixture pack.

use super::cases::{case, Case};

pub(super) const CASES: &[Case] = &[
    // ---- Board
    case(
        &[
            "spaces",
            "space",
            "space_id",
            "space_name",
            "adjacent",
            "neighbors",
            "xy",
            "space_at",
            "grid_size",
            "space_attr",
            "link_attr",
            "space_value",
            "set_space_value",
            "add_space_value",
        ],
        r#"
        same(spaces().len(), 58, "six grid tiles, two named spaces, then two seats' realms of 5 by 5");
        let k = space("keep");
        let g = space("gate");
        same(space_id(k), "keep", "space_id");
        same(space_name(k), "The Keep", "space_name");
        same(adjacent(k), [g], "adjacent");
        same(space_attr(k, "kind"), "castle", "space_attr");
        same(link_attr(k, g, "kind"), "drawbridge", "link_attr: what the link carries");
        same(link_attr(g, k, "kind"), "drawbridge", "link_attr: either way");
        same(link_attr(k, g, "width"), "", "link_attr: an attr the link does not carry");
        let said = "";
        try { link_attr(k, space_at(0, 0), "kind"); } catch (e) { said = `${e}`; }
        expect(said.contains("not neighbours"), `link_attr of spaces no link joins: ${said}`);
        same(space_value(k, "order"), 1, "space_value");
        same(space_value(k, "armies"), 0, "an unset space value");
        let v = board_version();
        same(set_space_value(k, "armies", 3), 3, "set_space_value");
        same(add_space_value(k, "armies", 2), 5, "add_space_value");
        same(space_value(k, "armies"), 5, "space_value reads it back");
        expect(board_version() > v, "a space value changes the board");
        let t = space_at(1, 0);
        same(space_id(t), "1,0", "grid ids are x,y");
        same(space("1,0"), t, "space by grid id");
        same(xy(t), [1, 0], "xy");
        same(space_attr(t, "terrain"), "wood", "a tile's terrain from the legend");
        same(space_at(5, 5), -1, "off the board");
        same(grid_size(), [3, 2], "grid_size: width and height");
        same(space_at(2, 1) >= 0 && space_at(3, 0) < 0 && space_at(0, 2) < 0, true, "the grid's edges");
        same(neighbors(t, false).len(), 3, "4-neighbours of a top edge tile");
        same(neighbors(t, true).len(), 5, "8-neighbours of a top edge tile");
        "#,
    ),
    case(
        &["regions_by", "region_of", "distance", "bounds"],
        r#"
        // ["ab.", "..b"]: hill wood plain / plain plain wood; the named spaces have no terrain.
        let r = regions_by("terrain");
        same(r.len(), 7, "five regions of terrain, and a castle on each seat's realm");
        same(r[3].value, "plain", "a region's value");
        same(r[3].spaces, [space_at(0, 1), space_at(1, 1)], "its spaces");
        same(r[3].size, 2, "its size");
        expect(!("total" in r[3]), "no total without `sum`");
        same(regions_by("terrain", #{ diagonal: true }).len(), 5, "diagonally the plains join, and the woods");
        same(regions_by("terrain", #{ within: [space_at(0, 1)] }).len(), 1, "within a list");
        same(regions_by("order", #{ sum: "order" })[0].total, 1, "a value key, its total");
        same(regions_by("kind")[0].spaces, [space("keep")], "named spaces by attribute");
        let said = "";
        try { regions_by("terrain", #{ diagonl: true }); } catch (e) { said = `${e}`; }
        expect(said.contains("did you mean `diagonal`"), `an unknown option: ${said}`);
        same(region_of(space_at(1, 1), "terrain"), [space_at(0, 1), space_at(1, 1)], "region_of");
        same(region_of(space("gate"), "terrain"), [], "region_of a space without the key");
        same(distance(space_at(0, 0), space_at(2, 1), true), 2, "king's moves");
        same(distance(space_at(0, 0), space_at(2, 1), false), 3, "orthogonal steps");
        same(distance(space("keep"), space("gate"), false), 1, "named spaces by adjacent");
        same(distance(space("keep"), space_at(0, 0), false), -1, "nothing joins them");
        same(bounds([space_at(1, 0), space_at(2, 1)]), #{ x: 1, y: 0, w: 2, h: 2 }, "bounds");
        "#,
    ),
    case(
        &[
            "place",
            "pieces_at",
            "pieces_of",
            "count_at",
            "count_of",
            "move_piece",
            "return_piece",
            "piece_kind",
            "piece_owner",
            "set_piece_owner",
            "piece_space",
            "piece_get",
            "piece_set",
            "supply",
            "take",
            "give_back",
            "supplies",
            "supply_name",
            "supply_one",
            "supply_attr",
            "count_pieces",
            "reachable",
            "distance",
            "board_version",
        ],
        r#"
        let a = space_at(0, 0);
        let b = space_at(2, 1);
        same(supply("knight"), 2, "supply");
        same(supplies(), ["knight", "gold"], "supplies: board.toml's order");
        same(supply_name("knight"), "Knights", "supply_name");
        same(supply_one("knight"), "Knight", "supply_one");
        same(supply_attr("knight", "side"), "crown", "supply_attr");
        same(supply_attr("knight", "colour"), "", "supply_attr, absent");
        same(count_pieces(1, "knight"), "1 Knight", "count_pieces: one");
        same(count_pieces(2, "knight"), "2 Knights", "count_pieces: several");
        same(count_pieces(3, "gold"), "3 Golds", "count_pieces without `one`: English rules");
        same(supply_one("gold"), "", "supply_one without `one`");
        let said = "";
        try { supply_name("knigth"); } catch (e) { said = `${e}`; }
        expect(said.contains("did you mean `knight`"), `supply_name of no supply: ${said}`);
        let v0 = board_version();
        let p = place("knight", a, 0);
        expect(board_version() > v0, "placing changes the board");
        same(supply("knight"), 1, "place takes from the supply");
        same(pieces_at(a), [p], "pieces_at");
        same(pieces_at(a, "knight"), [p], "pieces_at of a kind");
        same(pieces_at(a, "archer"), [], "pieces_at of another kind");
        same(pieces_of(0, "knight"), [p], "pieces_of");
        same(pieces_of(1, ""), [], "pieces_of another owner");
        same(count_at(a), 1, "count_at");
        same(count_at(a, "knight"), 1, "count_at of a kind");
        same(count_at(a, "archer"), 0, "count_at of another kind");
        same(count_of(0, "knight"), 1, "count_of");
        same(count_of(0, ""), 1, "count_of any kind");
        same(count_of(1, "knight"), 0, "count_of another owner");
        same(piece_kind(p), "knight", "piece_kind");
        same(piece_owner(p), 0, "piece_owner");
        set_piece_owner(p, 1);
        same(piece_owner(p), 1, "set_piece_owner");
        same(piece_space(p), a, "piece_space");
        same(piece_get(p, "hp"), 0, "unset piece number");
        piece_set(p, "hp", 2);
        same(piece_get(p, "hp"), 2, "piece_set");
        let v1 = board_version();
        same(distance(a, b, 10, false), 3, "distance on the grid");
        same(distance(a, b, 10, true), 2, "with diagonals");
        same(reachable(a, 1, false, false).len(), 2, "reachable in one step");
        let right = space_at(1, 0);
        same(reachable(a, 3, false, false, [a, right, space_at(2, 0)]), [[right, 1], [space_at(2, 0), 2]], "reachable within a list");
        same(board_version(), v1, "reading the board changes nothing");
        move_piece(p, b);
        expect(board_version() > v1, "moving changes the board");
        same(piece_space(p), b, "move_piece");
        return_piece(p);
        same(piece_space(p), -1, "return_piece");
        same(supply("knight"), 2, "back in its supply");
        place("knight", a, -1);
        place("knight", a, -1);
        same(place("knight", a, -1), -1, "an empty supply places nothing");
        same(take("gold", 4), 4, "take");
        same(take("gold", 40), 6, "take what is left");
        give_back("gold", 3);
        same(supply("gold"), 3, "give_back");
        "#,
    ),
    case(
        &[
            "board",
            "board_owner",
            "board_size",
            "board_limit",
            "board_at",
            "board_squares",
            "filled",
            "board_of",
            "board_text",
            "placements",
            "place_tile",
        ],
        r#"
        let b = board(0, "realm");
        same(board_owner(b), 0, "board_owner");
        expect(board(1, "realm") != b, "each seat has its own");
        same(board_size(b), [5, 5], "a growing 3 by 3 board is kept 5 by 5");
        same(board_limit(b), [3, 3], "what is laid fits in 3 by 3");
        let mid = board_at(b, 2, 2);
        same(board_at(b, 5, 0), -1, "off the board");
        same(space_attr(mid, "terrain"), "castle", "the start square, in the middle");
        same(space_name(mid), "c3", "squares are named by column letter and row number");
        same(filled(b), [mid], "filled");
        same(board_squares(b).len(), 25, "board_squares");
        same(board_of(mid), b, "board_of");
        same(board_of(space("keep")), -1, "the map is no board");
        let said = "";
        try { board("realm"); } catch (e) { said = `${e}`; }
        expect(said.contains(`board(p, "realm")`), `a seat's board asked for as shared: ${said}`);
        let cells = def_faces("domino")[0].cells;
        same(cells.len(), 2, "a tile's front face lists its cells");
        same(cells[0], #{ x: 0, y: 0, terrain: "wood", values: #{ crowns: 1 } }, "each cell as written");
        same(cells[1].values, #{}, "a cell without values");
        expect(!("cells" in def_faces("archer")[0]), "only tiles have cells");
        let d = create_card("domino", zone("tiles"));
        let all = placements(b, d);
        let next = placements(b, d, |p| p.squares.some(|s| neighbors(s, false).contains(board_at(board(0, "realm"), 2, 2))));
        same(next.len(), 24, "4 squares by the castle, 3 ways on from each, wood or lake there");
        expect(all.len() > next.len(), "the rule narrows");
        same(placements(b, d, #{ touching: true }), next, "touching: a square beside a filled one");
        let north = placements(b, d, #{ touching: true }, |p| p.facing == "north");
        same(north, next.filter(|p| p.facing == "north"), "options, then the rule");
        same(placements(b, d, #{ touching: false }), all, "touching: false keeps them all");
        said = "";
        try { placements(b, d, #{ touchng: true }); } catch (e) { said = `${e}`; }
        expect(said.contains("did you mean `touching`"), `an unknown option: ${said}`);
        let p = next[0];
        same(p.terrains, ["wood", "lake"], "what each square would take");
        expect(p.label.starts_with("domino at ") && p.label.contains(", facing "), p.label);
        place_tile(b, d, p);
        same(filled(b).len(), 3, "two squares more");
        same(space_attr(p.squares[0], "terrain"), "wood", "the first cell where the placement put it");
        same(space_value(p.squares[0], "crowns"), 1, "with its values");
        same(laid_crowns(p.squares[0]), 1, "and the tile that covers it");
        let r = regions_by("terrain", #{ within: filled(b), sum: "crowns" });
        same(r.len(), 3, "castle, wood and lake");
        same(r.filter(|x| x.value == "wood")[0].total, 1, "a region's crowns");
        expect(board_text(b).contains("w") && board_text(b).contains("l"), board_text(b));
        said = "";
        try { place_tile(b, d, p); } catch (e) { said = `${e}`; }
        expect(said.contains("cannot lie at"), `laid twice: ${said}`);
        said = "";
        try { placements(b, d, |p| 1); } catch (e) { said = `${e}`; }
        expect(said.contains("true or false"), `a rule that is no test: ${said}`);
        "#,
    ),
];
