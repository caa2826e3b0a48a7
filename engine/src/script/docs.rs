//! The script API reference, as data: every function registered in [`super::api`] with
//! its signature and what it does. `docs/script-api.md` is generated from this table
//! (a test fails when the file is stale or a registered function is undocumented;
//! `CROWN_BLESS=1 cargo test -p crown-engine` rewrites it).

/// One documented function: section, signature, description.
pub struct Entry {
    pub section: &'static str,
    pub signature: &'static str,
    pub doc: &'static str,
}

const fn f(section: &'static str, signature: &'static str, doc: &'static str) -> Entry {
    Entry { section, signature, doc }
}

/// Every function of the API, grouped by section, in reading order.
pub const API: &[Entry] = &[
    // Players
    f("Players", "players() -> int", "Number of seats. Players are numbered 0 to players()-1."),
    f("Players", "player_name(p) -> string", "The seat's name (`P1`... or the scenario's seat name)."),
    f("Players", "character(p) -> string", "Id of the player's noble or leader, or \"\"."),
    f("Players", "set_character(p, id)", "Give the player a noble or leader; its script's hooks then take part in `fold`."),
    f("Players", "counter(p, name) -> int", "A named counter of the player (0 if never set)."),
    f("Players", "set_counter(p, name, value) -> int", "Set a counter; logged. Returns the new value."),
    f("Players", "add_counter(p, name, delta) -> int", "Add to a counter (saturating); logged. Returns the new value."),
    f("Players", "hide_counter(p, name)", "Show the counter to its owner only (behind a screen) at the terminal."),
    f("Players", "eliminate(p)", "Mark the player out of the game (told \"P2 is out of the game\"; the end of the game says in which turn)."),
    f("Players", "eliminate(p, told)", "The same, told in the pack's words: `eliminate(p, \"Bea is out of the round\")`."),
    f("Players", "restore(p)", "Bring an eliminated player back (survival modes)."),
    f("Players", "is_out(p) -> bool", "Whether the player is out."),
    f("Players", "alive() -> array", "Players not out, in seat order."),
    f("Players", "alive_after(p) -> array", "Players not out, in turn order starting after `p` (`p` itself left out): whoever plays next first."),
    f("Players", "set_score(p, n)", "The player's final score, reported by `crown sim` and transcripts."),
    f("Players", "set_score(p, parts)", "The final score as the sum of its parts, `[[\"walls\", 2], [\"resources\", 6]]`: the end of the game shows each part beside the score. Setting the same parts again writes nothing."),
    f("Players", "score(p) -> int", "The score set so far."),
    // Turns
    f("Turns", "current() -> int", "The seat whose turn it is. An error until the rules give the turn with `set_current`."),
    f("Turns", "has_turn(p) -> bool", "Whether seat `p` has the turn (false for every seat until `set_current`): for a status line."),
    f("Turns", "set_current(p)", "Give seat `p` the turn (the transcript says `turn: NAME`)."),
    f("Turns", "next_seat(p) -> int", "The seat after `p` in seat order (wrapping) that is neither out of the game nor withdrawn; `p` itself when there is none."),
    f("Turns", "advance() -> int", "Give the turn to `next_seat(current())`, and return that seat."),
    f("Turns", "first_seat() -> int", "The seat that opens a round (0 until `set_first`)."),
    f("Turns", "set_first(p)", "Make `p` the seat that opens a round."),
    f("Turns", "round() -> int", "The round number: 0 until the rules start one."),
    f("Turns", "round_name(n) -> string", "What the game calls round `n`: its entry in pack.toml's `round_names` (`round II`), else `round n`. The engine's own lines and the status use it."),
    f("Turns", "set_round(n)", "Set the round number (0 or more)."),
    f("Turns", "next_round() -> int", "Add one to the round number, and return it."),
    f("Turns", "pass(p)", "Seat `p` passes: `has_passed(p)` until `clear_passes()` or `reset_passes()`. The rules say what a pass means (and narrate it)."),
    f("Turns", "withdraw(p)", "Seat `p` passes for good: passed until `reset_passes()`, and skipped by `next_seat` and `advance` meanwhile."),
    f("Turns", "has_passed(p) -> bool", "Whether `p` has passed or withdrawn."),
    f("Turns", "has_withdrawn(p) -> bool", "Whether `p` has withdrawn."),
    f("Turns", "all_passed() -> bool", "Whether every seat still in the game has passed or withdrawn."),
    f("Turns", "last_passer() -> int", "The seat that passed or withdrew last since the passes were reset, or -1."),
    f("Turns", "clear_passes()", "Forget the passes (a seat acted, so everyone may act again); withdrawn seats stay withdrawn."),
    f("Turns", "reset_passes()", "Forget the passes and withdrawals, and who passed last (a new round of passing)."),
    f("Turns", "phase() -> string", "The phase of the round. An error until the rules set one."),
    f("Turns", "set_phase(name)", "Set the phase: one of the names pack.toml's `phases` lists (an unknown name is an error, and `crown check` finds literal ones)."),
    f("Turns", "is_phase(name) -> bool", "Whether the phase is `name` (a name `phases` lists)."),
    f("Turns", "next_phase() -> string", "Move to the next phase `phases` lists (the first when none is set; after the last, the first again), and return it."),
    // Zones
    f("Zones", "zone(name) -> int", "A shared zone (created on first use): `deck`, `discard`, `market`... Zones named `deck`, `*deck`, `box` and `bag` are hidden; others public."),
    f("Zones", "pzone(p, name) -> int", "A player's zone: `hand` (seen by its owner only), `kingdom`, `play`..."),
    f("Zones", "cards(z) -> array", "Card ids in the zone, top first."),
    f("Zones", "cards_up(z) -> array", "Card ids in the zone, bottom first (the order they were put there, for piles that grow upwards)."),
    f("Zones", "count(z) -> int", "Number of cards in the zone."),
    f("Zones", "top(z) -> int", "The top card, or -1 when empty."),
    f("Zones", "bottom(z) -> int", "The bottom card, or -1 when empty."),
    f("Zones", "move_card(c, z)", "Put a card on top of a zone (detaching it if it was attached); logged. Cards attached under it come along."),
    f("Zones", "move_bottom(c, z)", "Put a card at the bottom of a zone; logged."),
    f("Zones", "draw(from, to) -> int", "Move the top card of `from` to the top of `to`; returns it, or -1 when `from` is empty."),
    f("Zones", "shuffle(z)", "Shuffle a zone with the game's random generator; logged."),
    f("Zones", "zone_of(c) -> int", "The zone a card is in (for an attached card, its host's zone), or -1."),
    f("Zones", "zone_name(z) -> string", "The zone's name."),
    f("Zones", "zone_owner(z) -> int", "The owning player, or -1 for a shared zone."),
    f("Zones", "set_active(z, on)", "Cards in an active zone (and cards attached under them) take part in `fold`."),
    f("Zones", "set_visibility(z, v)", "`public`, `owner` or `hidden`: who sees the zone's cards from now on (pack.toml's `[zones]` says who sees each zone from the start)."),
    f("Zones", "find_in(z, id) -> int", "The topmost card of definition `id` in the zone, or -1."),
    f("Zones", "remove_card(c)", "Take a card out of the game (destroyed, returned to the box)."),
    // Cards
    f("Cards", "create_card(id, z) -> int", "A new instance of definition `id` on top of zone `z`."),
    f("Cards", "create_cards(id, n, z) -> array", "`n` new instances of `id` in `z`."),
    f("Cards", "create_deck(deck, z) -> array", "For every card definition listing `deck` in its `decks`, `count` instances into `z`, in order of id (shuffle afterwards). An error when no card lists `deck`."),
    f("Cards", "def_of(c) -> string", "The card's definition id."),
    f("Cards", "distinct_defs(cards) -> array", "The cards of an array, keeping only the first card of each definition (in the array's order): one entry per kind of card, as when offering each card of a hand once."),
    f("Cards", "side(c) -> string", "Which side of a two-sided card (a definition with a `back` table) is up: `front` or `back`."),
    f("Cards", "set_side(c, side)", "Turn a two-sided card to its `front` or `back`; logged. `value`, `attr` and `name_of` then read that side (cards with stages turn with `set_stage`)."),
    f("Cards", "name_of(c) -> string", "The printed name (of the current stage, for multi-stage cards)."),
    f("Cards", "kind_of(c) -> string", "The definition's kind."),
    f("Cards", "has_keyword(c, k) -> bool", "Whether the definition or the current stage has keyword `k`."),
    f("Cards", "with_keyword(cards, k) -> array", "The cards of an array that have keyword `k` (as `has_keyword`), in the array's order: `with_keyword(cards(pzone(p, \"hand\")), \"attack\")`."),
    f("Cards", "value(c, k) -> int", "A named value of the face that is up: the current stage's (multi-stage cards), the back's (a two-sided card turned over) or the definition's, plus 1 per sticker named `k`. An error naming the card and face when that face has no such value (and no sticker names it)."),
    f("Cards", "value_or(c, k, default) -> int", "As `value`, giving `default` when the face up has no such value: for values only some cards carry."),
    f("Cards", "attr(c, k) -> string", "A named text attribute (stage first, then definition), or \"\"."),
    f("Cards", "effects(c) -> array", "The effects written on the face that is up (its stage's, or its back's when turned over; a face listing none has the definition's): an array of maps, one per entry of `effects`, in order, each field as written (a word as text, a list as an array, a table as a map, a list of entries as an array of maps); a field the pack's `[vocabulary.<kind>.effects]` declares and the entry leaves out reads as empty (`false`, `0`, `\"\"`, `[]`, `#{}`)."),
    f("Cards", "mark(c, k) -> int", "A mark on this card instance (damage, checkboxes, uses...), 0 if unset."),
    f("Cards", "set_mark(c, k, v) -> int", "Set a mark; logged."),
    f("Cards", "add_mark(c, k, delta) -> int", "Add to a mark; logged."),
    f("Cards", "attach(c, host)", "Tuck card `c` under `host` (defences on a land, damage under a defence, equipment). It leaves its zone and travels with the host."),
    f("Cards", "attached(host) -> array", "Cards attached under `host`, first attached first."),
    f("Cards", "host_of(c) -> int", "The card `c` is attached to, or -1."),
    f("Cards", "owner_of(c) -> int", "The player controlling the card (set when it enters a player's zone), or -1."),
    f("Cards", "set_owner(c, p)", "Change the controller (-1 for none)."),
    f("Cards", "face_up(c) -> bool", "Whether the card is face up (new cards are)."),
    f("Cards", "set_face_up(c, up)", "Turn a card face up or down (hidden traps); logged."),
    f("Cards", "stage(c) -> string", "The current stage: `front-top`, `front-bottom`, `back-top`, `back-bottom`."),
    f("Cards", "set_stage(c, pos) -> string", "Turn a multi-stage card to a stage; returns how it turned: `rotate`, `flip` or `none`. Logged."),
    f("Cards", "stages(c) -> array", "The stage positions the card defines."),
    f("Cards", "upgrades(c) -> array", "Upgrades printed on the current stage: maps `#{to, turn, cost}` with `cost` a map resource -> amount."),
    f("Cards", "checkboxes(c) -> array", "Checkboxes printed on the current stage."),
    f("Cards", "add_sticker(c, s)", "Put a sticker on the card; a sticker named like a value adds 1 to it."),
    f("Cards", "stickers(c) -> array", "The card's stickers."),
    // Definitions
    f("Definitions", "defs(kind) -> array", "Ids of every `card`, `plaque`, `noble` or `leader` definition, sorted by id (reordering files never changes a game)."),
    f("Definitions", "defs_in_deck(deck) -> array", "Ids of definitions listing `deck` in their `decks`."),
    f("Definitions", "def_exists(id) -> bool", "Whether a definition `id` exists."),
    f("Definitions", "pack_keywords() -> array", "Every keyword a definition of the pack carries, on any face, sorted, each once."),
    f("Definitions", "prepared(id) -> any", "What the rules' `prepare(id)` worked out for definition `id` when the pack was loaded (a notation parsed once, say); an error when the rules define no `prepare`."),
    f("Definitions", "prepared(id, key) -> any", "One entry of the map `prepare(id)` gave (`prepared(def_of(c), stage(c))`); an error naming the keys it has when `key` is not one."),
    f("Definitions", "prepared(id, key, field) -> any", "One field of that entry, when the entry is a map (`prepared(def_of(c), stage(c), \"fx\")`), without copying its other fields; an error naming the fields it has when `field` is not one."),
    f("Definitions", "def_name(id) -> string", "Printed name."),
    f("Definitions", "def_kind(id) -> string", "Kind."),
    f("Definitions", "def_count(id) -> int", "Copies."),
    f("Definitions", "def_text(id) -> string", "Rules text."),
    f("Definitions", "def_value(id, k) -> int", "A named value of the definition (its front); an error when it has none."),
    f("Definitions", "def_value_or(id, k, default) -> int", "As `def_value`, giving `default` when the definition has no such value."),
    f(
        "Definitions",
        "def_back(id) -> map",
        "The definition's back face as written in its `back` table: `name`, `text`, `values`, `cost`, `attrs` (an error if it has none).",
    ),
    f(
        "Definitions",
        "did_you_mean(word, names) -> string",
        "The name among `names` nearest to `word` (a likely typo of it), or \"\" when none is near: for the hints a `validate` hook gives.",
    ),
    f(
        "Definitions",
        "def_faces(id) -> array",
        "Every face of the definition as written in its file, in order: its stages (or the definition itself as `front`), then its `back` table. Each is a map: `face` (`front`, `front-top`..., `back`), `name`, `keywords`, `values`, `cost`, `attrs`, `text`, `effects` (its own, as `effects(c)` reads them) and `upgrades` (a stage's, as `upgrades(c)` gives them: what the stage leads to; empty for other faces); a tile's front also has `cells`, each `#{ x, y, terrain, values }` as written.",
    ),
    f(
        "Definitions",
        "def_cost(id) -> map",
        "What the definition costs, as written in its `cost` table: resource -> amount (empty if it has none).",
    ),
    f("Definitions", "def_attr(id, k) -> string", "A named attribute (\"\" if unset)."),
    f("Definitions", "def_has_keyword(id, k) -> bool", "Whether the definition has keyword `k`."),
    f("Definitions", "def_keywords(id) -> array", "Keywords."),
    f("Definitions", "def_cards(id) -> array", "The card ids the definition brings along (`cards`)."),
    f("Definitions", "def_serial(id) -> int", "Serial number, or -1."),
    // Board
    f("Board", "spaces() -> array", "Every board space (grid tiles first, row by row, then named spaces)."),
    f("Board", "space(id) -> int", "The space with id `id` (`\"x,y\"` on a grid), or -1."),
    f("Board", "space_id(s) -> string", "Its id."),
    f("Board", "space_name(s) -> string", "Its name."),
    f("Board", "adjacent(s) -> array", "Spaces adjacent by `adjacent` in board.toml (symmetric)."),
    f("Board", "neighbors(s, diagonal) -> array", "Grid neighbours: 8 with `diagonal`, else 4 (falls back to `adjacent` off-grid)."),
    f("Board", "xy(s) -> array", "`[x, y]` of a grid space (x to the right, y down, from 0)."),
    f("Board", "space_at(x, y) -> int", "The grid space at x, y, or -1 off the board."),
    f("Board", "grid_size() -> array", "The grid's `[width, height]` in spaces; an error when the board has no grid."),
    f("Board", "space_attr(s, k) -> string", "A space attribute (grid tiles have `terrain`)."),
    f("Board", "link_attr(a, b, k) -> string", "An attribute of the link joining neighbours `a` and `b` (board.toml's `links = [{ to = \"b\", attrs = { kind = \"sea\" } }]`), either way round; \"\" when the link carries no such attribute. An error when no link joins them."),
    f("Board", "space_value(s, k) -> int", "A space's named number: its value in board.toml, or what a script set (0 if neither)."),
    f("Board", "set_space_value(s, k, n) -> int", "Set a named number on a space (the armies on a territory, its damage): one transcript line (`3,4 armies = 5`) when it changes, kept in saved games, shown on the drawn board. Returns it."),
    f("Board", "add_space_value(s, k, delta) -> int", "Add to a space's named number (saturating); logged as `set_space_value`. Returns the new value."),
    f("Board", "count_at(s) -> int", "How many pieces stand on a space (`pieces_at(s).len()` without the list)."),
    f("Board", "count_at(s, kind) -> int", "How many pieces of one kind stand on a space."),
    f("Board", "count_of(owner, kind) -> int", "How many pieces of an owner (-1 for neutral) and kind (\"\" for any) are on the board."),
    f("Board", "pieces_at(s) -> array", "Pieces on a space."),
    f("Board", "pieces_at(s, kind) -> array", "Pieces of one kind on a space (`pieces_at(s, \"wall\")`)."),
    f("Board", "pieces_of(owner, kind) -> array", "Pieces on the board of an owner (-1 for neutral) and kind (\"\" for any)."),
    f("Board", "place(kind, s, owner) -> int", "Take a piece from supply `kind` and put it on `s`; -1 when the supply is empty. Logged."),
    f("Board", "move_piece(pc, s)", "Move a piece; logged."),
    f("Board", "return_piece(pc)", "Return a piece to its supply; logged."),
    f("Board", "piece_kind(pc) -> string", "The supply it came from."),
    f("Board", "piece_owner(pc) -> int", "Its owner, -1 for neutral."),
    f("Board", "set_piece_owner(pc, p)", "Change the owner."),
    f("Board", "piece_space(pc) -> int", "Where it is, or -1 when in its supply."),
    f("Board", "piece_get(pc, k) -> int", "A named number on the piece (hit points...); 0 if unset."),
    f("Board", "piece_set(pc, k, v)", "Set a named number on the piece; logged. A piece with `blocks` = 0 does not block paths."),
    f("Board", "supply(kind) -> int", "How many are left in a supply."),
    f("Board", "supplies() -> array", "Every supply's id, in board.toml's order: for rules that read which supplies hold resources or whose pieces they are from their `attrs` (`supply_attr`)."),
    f("Board", "supply_name(kind) -> string", "What people call a supply's pieces (its `name` in board.toml, else its id): `Danes`."),
    f("Board", "supply_one(kind) -> string", "What people call one of its pieces (its `one`: `Dane`); empty when the board gives none and the name is that word."),
    f("Board", "supply_attr(kind, key) -> string", "An attribute of a supply (`side`), empty when it has none; an error for a supply the board does not have."),
    f("Board", "count_pieces(n, kind) -> string", "A number of a supply's pieces in words: `1 Dane`, `3 Danes` (its `one` for one, its `name` for several; without `one`, the name made plural by English rules)."),
    f("Board", "board_version() -> int", "A number that changes whenever a piece is placed, moved, returned, given an owner or a value, or a supply changes."),
    f("Board", "take(kind, n) -> int", "Take up to `n` from a supply (resources held off the board); returns how many were taken."),
    f("Board", "give_back(kind, n)", "Return `n` to a supply."),
    f("Board", "reachable(s, budget, diagonal, into_occupied) -> array", "Spaces reachable from `s` in at most `budget` steps through unoccupied spaces, nearest first; with `into_occupied` an occupied space may end a path."),
    f("Board", "reachable(s, budget, diagonal, into_occupied, within) -> array", "The same, entering only the spaces listed in `within` (a field inside its border, say), as `[space, steps]` pairs, nearest first (by steps, then space number)."),
    f("Board", "distance(from, to, budget, diagonal) -> int", "Steps of the shortest such path (ending on `to` even if occupied), or -1."),
    f("Board", "distance(a, b, diagonal) -> int", "Steps between two spaces, ignoring pieces: on the grid the king's-move distance with `diagonal`, else the orthogonal one; between named spaces the fewest `adjacent` steps; -1 when nothing joins them."),
    f("Board", "regions_by(key) -> array", "The connected regions of the board by `key`: each a largest group of connected spaces (orthogonally on the grid, by `adjacent` off it) carrying the same attribute (`terrain`), or else value, under `key`, as a map: `value`, `spaces` (in board order), `size`. Spaces without the key belong to none. In the order of their first space."),
    f("Board", "regions_by(key, opts) -> array", "The same with options: `within` (an array: only these spaces), `diagonal` (true: diagonal neighbours join too), `sum` (a value key: each region's `total` adds it up over its spaces). `regions_by(\"terrain\", #{ sum: \"crowns\" })`."),
    f("Board", "region_of(s, key) -> array", "The spaces of the region holding `s` (as `regions_by(key)`), `s` among them; empty when `s` has no `key`."),
    f("Board", "bounds(spaces) -> map", "The smallest box holding the grid spaces listed: `#{ x, y, w, h }` (left column, top row, width, height); an error when none is on the grid."),
    f("Board", "board(kind) -> int", "The shared board of a `[[board]]` kind in board.toml; an error for a kind each seat has its own of."),
    f("Board", "board(p, kind) -> int", "Seat `p`'s board of a `[[board]]` kind with `per_seat = true` (a kingdom each)."),
    f("Board", "board_owner(b) -> int", "The seat a board belongs to, -1 for a shared one."),
    f("Board", "board_limit(b) -> array", "`[width, height]` that what is laid on the board must fit in: a growing board's `width` and `height` as board.toml gives them (a kingdom of 5 by 5), any other board's size."),
    f("Board", "board_size(b) -> array", "`[width, height]` of the board as kept (a growing board: twice its size less one, its start in the middle)."),
    f("Board", "board_at(b, x, y) -> int", "The square of board `b` at column `x`, row `y` (from 0), or -1 off it. Squares are spaces: every board function works on them, and `space_name` names them `c4` (column letter, row number)."),
    f("Board", "board_squares(b) -> array", "Every square of a board, row by row."),
    f("Board", "filled(b) -> array", "The squares of a board that hold something (a `terrain`): the start square and the tiles laid."),
    f("Board", "board_of(s) -> int", "The board a space is a square of, -1 for the map's spaces."),
    f("Board", "board_text(b) -> string", "A board drawn as text: each square its terrain's letter (`.` when empty) and the sum of its values when it has any (`f2`), columns lettered, rows numbered, then a line saying what the letters and numbers stand for; a growing board shows the room it may still grow into. Terrains sharing a first letter get letters of their own (field `f`, forest `o`)."),
    f("Board", "placements(b, c) -> array", "Every way to lay tile `c` (a card whose definition has `cells`) on board `b`: each square for its first cell and each facing (where the tile's printed top points: `north` as printed, then `east`, `south`, `west`, turning clockwise about its first cell), every cell on an empty square and, on a growing board, all that is laid within its size; ways that leave the board the same are given once. Each is a map: `at`, `facing`, `squares` (the square each cell covers, in the order of `cells`), `terrains` (the terrain each of those squares would take), `label` (`d13 at c4, facing north`), ready for `choose`."),
    f("Board", "placements(b, c, rule) -> array", "The same, kept by the rules' own test: `rule` is called with each placement and returns true to keep it (`|p| p.squares.some(|s| touches_like(s))`)."),
    f("Board", "placements(b, c, options) -> array", "The same with options: `#{ touching: true }` keeps only the ways that lay a square beside (orthogonally) a filled one, before any rule is asked, so a rule that wants the tile next to something is called for those alone (an unknown option is an error naming the known ones)."),
    f("Board", "placements(b, c, options, rule) -> array", "Options, then the rules' own test of each placement left (`placements(b, c, #{ touching: true }, |p| beside_like(p))`)."),
    f("Board", "place_tile(b, c, placement)", "Lay tile `c` as one of its placements says (`at` and `facing`): each square takes its cell's `terrain`, values and `tile` (the card); logged as `lay d13#5 on kingdom@Ann at c4, facing north`. An error where the tile cannot lie."),
    // Choices and hooks
    f("Choices and hooks", "choose(p, prompt, options) -> any", "Ask player `p`'s agent. Options are strings (their labels) or maps with a `label`; recorded games replay by label, or by the option's `key` (a text or number) when it has one, so a label that shows a changing value (a rank, a count) gives its option a `key`; options sharing a label count as one, and two options may not share a key. Returns the chosen option. A single option is taken without asking. A map's `confirm` text (e.g. on Resign) is asked again, yes or no, before a person at the terminal takes it; bots ignore it. A `space` field (a space id or number, or a list) or a `supply` field (a supply id, or a list) names what on the drawn map a click in the browser takes the option by."),
    f("Choices and hooks", "choose_some(p, prompt, options, least, most) -> array", "Ask player `p`'s agent for `least` to `most` of `options` (labels or maps, as `choose` takes them), and return those picked in the order picked: which pawns harvest, which cards to discard. Asked one pick at a time, each pick a choice of its own among the options not yet picked (recorded, replayed and weighed by bots like any other), with `Done` among them once `least` are picked; the picking ends at `most` or when no option is left. A person picks the whole set at once (`1 3 4` at the terminal, boxes to tick in the browser). `greedy_score` weighs the options, never `Done`, which is worth 0: a greedy bot picks while an option scores above 0. Limits the wrong way round, `least` above the options' count, or an option labelled `Done` are errors."),
    f("Choices and hooks", "choose_number(p, prompt, lo, hi) -> int", "Ask player `p`'s agent for a whole number from `lo` to `hi` (both included, at most 10,000 of them): how many armies move, how much to bid. A choice among the numbers, each its own label (`7`), so recordings replay it and bots weigh each number (`greedy_score` gets the number as its option); a person types the number instead of reading a list. A range of one number is taken without asking; an empty range is an error."),
    f("Choices and hooks", "unavailable(menu, label, why)", "Show an option a person cannot take now, and why (`m.unavailable(\"Build a wall\", \"needs 2 more wood\")`): listed greyed out after the menu's options, never offered, never seen by bots. In an array of options, a map with an `unavailable` text does the same."),
    f("Choices and hooks", "menu() -> Menu", "An empty action menu: a light list of options for `choose(p, prompt, menu)`, cheaper to build than an array of maps, whose labels may be functions called only when someone reads them."),
    f("Choices and hooks", "add(menu, kind, label)", "`m.add(\"end\", \"End turn\")`: an option with a fixed label (an option whose label the menu already holds is left out)."),
    f("Choices and hooks", "add(menu, kind, label, fields)", "The same with a map of more fields the chosen option carries (`#{ line: l, worth: 3 }`). The label may be a function of the option, made only when read: `m.add(\"target\", |o| `Attack ${name_of(o.line)}`, #{ line: l })` (such options are never merged: give each its own reading)."),
    f("Choices and hooks", "add_numbered(menu, kind, label, fields)", "As `add`, but a label the menu already holds is numbered instead of left out (`Fire Archers from your Land (2)`): for options that are distinct though they read the same."),
    f("Choices and hooks", "add_card(menu, kind, c, label_fn)", "`m.add_card(\"play\", c, |o| `Play ${name_of(o.card)}`)`: an option about card `c`, labelled by `label_fn(option)` only when read (the option is a map of its `kind`, `card` and fields); one option per kind and card definition (a second copy of a card already offered is left out)."),
    f("Choices and hooks", "add_card(menu, kind, c, label_fn, fields)", "The same with a map of more fields the option carries (`#{ cost: 0, ends_turn: true }`)."),
    f("Choices and hooks", "offer(menu, kind, cards, hook, args, label_fn)", "For each card of `cards` (one per definition), call the card's `hook(args..., c)` and add the card (as `add_card`) when it returns true; a card whose script lacks the hook is left out. `m.offer(\"play\", cards(hand(p)), \"can_play\", [p], |o| `Play ${name_of(o.card)}`)`."),
    f("Choices and hooks", "note(menu, kind, note_fn)", "`m.note(\"target\", |o| `defended by ${defences(o.line)}`)`: what each option of `kind` costs or risks, made by `note_fn(option)` only for a person (the terminal prints it under the option, the browser beneath its button, `preview` above what changes); bots never make it. It may return `()` for no note. An option map says the same with a `note` text."),
    f("Choices and hooks", "ends_turn(menu)", "Mark the option added last as ending the seat's turn: the terminal and the browser say so beside it (an option map says the same with `ends_turn: true`)."),
    f("Choices and hooks", "confirm(menu, text)", "Give the option added last a question a person at the table must answer yes to before it is taken (bots ignore it)."),
    f("Choices and hooks", "len(menu) -> int", "How many options the menu holds."),
    f("Choices and hooks", "labels(menu) -> array", "Every option's label, in order (label functions called): for tests and for rules that show a menu."),
    f("Choices and hooks", "options(menu) -> array", "Every option as `choose` would return it (a map of its `kind`, `card`, `label` and fields), in order: for tests, and for rules that act on an option they pick themselves."),
    f("Choices and hooks", "choose(p, prompt, menu) -> map", "Ask player `p`'s agent to pick from an action menu; returns the chosen option as a map: `kind`, `card` (-1 for none), `label` and the fields it was given. Label functions must not change the game (they run only when someone reads them: a person, the transcript's chosen line, a bot whose scripts read `label`). A greedy bot whose scripts never read `label` gets the options without it."),
    f("Choices and hooks", "invoke(target, name, args) -> any", "Call function `name` in the script of a card instance (int) or definition (id string) with an array of arguments; () when it has no such function."),
    f("Choices and hooks", "has_fn(target, name) -> bool", "Whether that script defines `name`."),
    f("Choices and hooks", "fold(hook, value, args) -> any", "Pass `value` through `hook(source, value, args...)` of every active source: each player's character (source = the player number), then cards in active zones and the cards under them (source = the card id). Returns the final value."),
    // Game
    f("Game", "get(k) -> any", "A game variable (any script value), or () if unset."),
    f("Game", "get_or(k, default) -> any", "A game variable, or `default`."),
    f("Game", "set(k, v)", "Set a game variable; changes of ints, bools and strings are logged."),
    f("Game", "roll(n) -> int", "A die roll 1..n from the game's generator; logged."),
    f("Game", "random(n) -> int", "A random number 0..n-1 from the game's generator."),
    f("Game", "shuffle_list(a) -> array", "A shuffled copy of an array."),
    f("Game", "option(k) -> any", "A rule setting: the scenario's `[options]`, else `pack.toml`'s `[options]` (int, bool, string or array of ints). A setting neither gives is an error naming the nearest known one."),
    f("Game", "option_or(k, default) -> any", "A rule setting, or `default` when neither the scenario nor `pack.toml` gives it (for settings that are truly optional; a number the rules need belongs in `[options]`)."),
    f("Game", "has_option(k) -> bool", "Whether the scenario or `pack.toml` gives setting `k`."),
    f("Game", "scenario() -> string", "The scenario id, or \"\"."),
    f("Game", "seat_character(p) -> string", "The character fixed for seat `p`, or \"\": the scenario's seat, or the run's (`crown sim --characters fixed:...|random|sweep` sets it for every seat, so rules that deal or offer characters should read this first)."),
    f("Game", "seat_cards(p) -> array", "Card ids the scenario gives seat `p`."),
    f("Game", "seat_agent(p) -> string", "The agent kind the scenario suggests for seat `p`, or \"\"."),
    f("Game", "seat_value(p, k) -> int", "A number the scenario gives seat `p`."),
    f("Game", "agent_kind(p) -> string", "The kind of agent playing seat `p` (`human`, `random`, `first`, `greedy`, `scripted`, or a search bot as named: `search`, `search:64:12:greedy`...; inside a search bot's rollouts, each seat is its rollout policy, `greedy` or `random`)."),
    f("Game", "turn_number() -> int", "How many times `turn()` has been called."),
    f("Game", "log(text)", "Tell every player what happened, in the game's words (\"Bea plays Trebuchet on Ann's Land 2\"): a narrated line, shown at the terminal and in the browser, and written to the transcript. It must not name anything a player may not see."),
    f("Game", "log_to(who, text)", "Tell only the seats `who` (a player or an array of players) something the others may not know (\"Bea draws Walls\"). Written to the transcript as `to Bea: text`."),
    f("Game", "log_to(who, text, others)", "Tell the seats `who` the whole of it and every other seat `others` instead (\"Bea draws 2 cards\"). Written to the transcript as `to Bea: text` then `to others: others`."),
    f("Game", "note_play(p, c)", "Record that `p` played card `c` (for `crown sim` card statistics)."),
    f("Game", "note_discard(p, c)", "Record that `p` lost card `c` from the hand without playing it (a forced discard): `crown sim` counts it as discarded, not as never played."),
    f("Game", "win_round(seats)", "The round in progress (begun by `set_round`/`next_round`) is won by `seats` (a player number or an array of them; `[]`: nobody). `crown sim` then reports rounds won by seat and card win rates per round. The transcript writes `round won: NAME`; an error if no round has begun or the round was already won."),
    f("Game", "end_game(winners, reason)", "End the game: an array of winning players and why. Set scores first with `set_score`."),
    f("Game", "is_over() -> bool", "Whether `end_game` was called."),
    f("Game", "checkpoint()", "Mark a safe point to suspend the game (between rounds of a campaign, say). When the game was started to pause at checkpoints (`crown campaign play`), it stops once the current `turn()` returns, and its state can be saved and resumed; otherwise nothing happens."),
    // Table
    f("Table", "can_see(viewer, c) -> bool", "Whether seat `viewer` may read card `c`: it lies (or is attached under a card lying) in a public zone or a zone of the viewer's own the viewer may see, and it is face up or the viewer's. Render hooks use it so that nothing hidden is drawn."),
    f("Table", "counter_label(k) -> string", "How the pack names counter `k` to people (`counter_names` in pack.toml), else `k`."),
    f("Table", "counters_text(p, viewer) -> string", "Player `p`'s counters as `viewer` sees them: the pack's `show_counters`, `label value` each, `?` for one `p` keeps behind a screen."),
    f("Table", "names_text(cards, viewer) -> string", "The cards' names as `viewer` may read them (\"a face-down card\" otherwise), in the order given, repeats folded (`Deny ×2`)."),
    f("Table", "columns(rows) -> string", "Rows (arrays of cells) laid out in aligned columns, one line each."),
    f("Table", "count_words(n, word) -> string", "A number with its noun, plural unless it is one: `1 card`, `3 cards`, `0 armies`, `2 coaches` (English rules)."),
    f("Table", "count_words(n, word, plural) -> string", "The same with the plural given, for any other: `count_words(n, \"Dane\", \"Danes\")`, `count_words(n, \"sheep\", \"sheep\")`."),
    f("Table", "words(list) -> string", "A list for a sentence: `a`, `a and b`, `a, b and c` (each item as text); \"\" for an empty list."),
    f("Table", "words(list, none) -> string", "The same, with `none` for an empty list (`words(moved, \"nothing\")`)."),
    f("Table", "words_or(list) -> string", "A choice for a sentence: `a`, `a or b`, `a, b or c`."),
    // Lists
    f("Lists", "list.sort(|a, b| ...)", "Sort the list in place (stable) by a comparison: a number below 0 puts `a` first, 0 keeps the order, above 0 puts `b` first (`true`/`false` mean `a` first / `b` first): `hand.sort(|x, y| rank(x) - rank(y))`. Anything else it returns, an error inside it, or an order that contradicts itself stops the script at its line."),
    f("Lists", "list.sort_by(|a, b| ...)", "The same as `sort`."),
    f("Lists", "list.order(|a, b| ...) -> array", "A sorted copy of the list, the list left as it is."),
    f("Lists", "list.order_by(|a, b| ...) -> array", "The same as `order`."),
    f("Lists", "list.map(|x| ...) -> array", "A new list of what the function returns for each item. The function may take the item's index too: `|x, i| ...`; so may every function below that is handed items."),
    f("Lists", "list.filter(|x| ...) -> array", "The items for which the function returns `true` (it must return `true` or `false`)."),
    f("Lists", "list.reduce(|total, x| ...) -> value", "Fold the list from the front: `total` starts as `()` and becomes what the function returns."),
    f("Lists", "list.reduce(|total, x| ..., start) -> value", "The same, `total` starting as `start`: `cards.reduce(|sum, c| sum + worth(c), 0)`."),
    f("Lists", "list.reduce_rev(|total, x| ...) -> value", "`reduce` from the back."),
    f("Lists", "list.reduce_rev(|total, x| ..., start) -> value", "`reduce` from the back, starting as `start`."),
    f("Lists", "list.some(|x| ...) -> bool", "Whether the function returns `true` for some item (it stops at the first)."),
    f("Lists", "list.all(|x| ...) -> bool", "Whether it returns `true` for every item (it stops at the first `false`)."),
    f("Lists", "list.index_of(|x| ...) -> int", "The index of the first item for which it returns `true`, or -1. (`index_of(value)` finds a value.)"),
    f("Lists", "list.index_of(|x| ..., start) -> int", "The same from index `start` (from the back when negative)."),
    f("Lists", "list.find(|x| ...) -> value", "The first item for which it returns `true`, or `()`."),
    f("Lists", "list.find(|x| ..., start) -> value", "The same from index `start`."),
    f("Lists", "list.find_map(|x| ...) -> value", "The first value the function returns that is not `()`, or `()`."),
    f("Lists", "list.find_map(|x| ..., start) -> value", "The same from index `start`."),
    f("Lists", "list.retain(|x| ...) -> array", "Keep the items for which it returns `true`; return the others, removed."),
    f("Lists", "list.drain(|x| ...) -> array", "Remove the items for which it returns `true`, and return them."),
    f("Lists", "list.dedup(|a, b| ...)", "Remove each item the function calls the same (`true`) as the item kept before it."),
    f("Lists", "map.map(|key, value| ...) -> map", "An object map of what the function returns for each entry."),
    f("Lists", "map.filter(|key, value| ...) -> map", "The entries for which it returns `true`."),
];

/// The Markdown reference.
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str("# Script API reference\n\n");
    out.push_str("<!-- Generated from engine/src/script/docs.rs by `CROWN_BLESS=1 cargo test -p crown-engine`; do not edit. -->\n\n");
    out.push_str(INTRO);
    let mut section = "";
    for e in API {
        if e.section != section {
            section = e.section;
            out.push_str(&format!("\n## {section}\n\n| function | what it does |\n|---|---|\n"));
        }
        out.push_str(&format!("| `{}` | {} |\n", e.signature, e.doc.replace('|', "\\|")));
    }
    out
}

const INTRO: &str = "Scripts are [Rhai](https://rhai.rs). Crown runs them in a sandbox: integers only (no floats), \
no `eval`, no `import`, no clock, variables must be declared with `let`, and limits on operations per call \
(2,000,000), call depth (48), expression depth, string, array and map sizes. A script that passes a limit \
stops its game with an error naming the script file and line.\n\n\
**How the engine calls a pack.** The rules script (`scripts/<pack>/rules.rhai`) defines `fn setup()`, \
called once, and `fn turn()`, called again and again until a script calls `end_game(winners, reason)`; \
after the pack's `max_turns` calls (default 500) the game is stopped and reported as too long. \
Optional: `fn greedy_score(p, prompt, option) -> int` ranks options for the `greedy` bot (with \
`fn greedy_plan(p, prompt, options)`, called once per choice, its value comes as a fourth argument: \
`fn greedy_score(p, prompt, option, plan)`, for what every option is weighed against); \
`fn evaluate(p) -> int` says how well seat `p` stands when a `search` bot's rollout stops before the end \
(higher is better; without it the scores are compared); \
`fn render_status(viewer) -> string` draws, in a few lines, what a person needs before each decision (their \
counters, their hand in a stable order, the public state that matters) and `fn render(viewer) -> string` the \
whole table as that seat sees it (asked for with `board`), both at the terminal and in the browser. Without \
them the engine shows the seat's counters and own cards, and its plain view of the table. Top-level statements of scripts do \
not run: put setup in `setup()`. A top-level `const NAME = value;` is worked out when the script is read \
(from literals, operators, Rhai's own functions and the constants above it) and seen by every function \
of its file.\n\n\
**Card, noble, leader and plaque scripts** (named by `script = \"...\"` in a definition) define functions \
the rules call with `invoke(card_or_id, \"on_play\", [args])`, or hooks consulted with `fold`. Every function \
of the rules script is visible to them, so shared helpers live in `rules.rhai`.\n\n\
**The game is implicit**: every function below reads or changes the game being played. Players, zones, \
cards, spaces and pieces are integers; definitions are named by their string ids. Every change of state \
is written to the transcript, one line per event, so golden games show exactly what happened.\n";

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A signature's name and its number of parameters, a method's receiver counted:
    /// `list.find(|x| ..., start) -> value` is `("find", 3)`, `eliminate(p: i64, told: &str)`
    /// is `("eliminate", 2)`. A closure's own parameters (`|a, b|`) are not counted.
    fn name_and_arity(signature: &str) -> (String, usize) {
        let open = signature.find('(').expect("a signature has its parentheses");
        let head = signature[..open].trim();
        let (receiver, name) = match head.rsplit_once('.') {
            Some((_, name)) => (1, name),
            None => (0, head),
        };
        let mut depth = 0;
        let mut in_closure = false;
        let mut params = 0;
        let mut empty = true;
        for ch in signature[open + 1..].chars() {
            match ch {
                '|' => in_closure = !in_closure,
                '(' | '[' | '{' | '<' if !in_closure => depth += 1,
                ')' if depth == 0 && !in_closure => break,
                ')' | ']' | '}' | '>' if !in_closure => depth -= 1,
                ',' if depth == 0 && !in_closure => params += 1,
                c if !c.is_whitespace() => empty = false,
                _ => {}
            }
        }
        (name.to_string(), receiver + if empty { 0 } else { params + 1 })
    }

    #[test]
    fn arity_is_read_from_either_form_of_signature() {
        assert_eq!(name_and_arity("eliminate(p, told)"), ("eliminate".into(), 2));
        assert_eq!(name_and_arity("players() -> int"), ("players".into(), 0));
        assert_eq!(name_and_arity("list.find(|x| ..., start) -> value"), ("find".into(), 3));
        assert_eq!(name_and_arity("list.sort(|a, b| ...)"), ("sort".into(), 2));
        assert_eq!(name_and_arity("eliminate(p: i64, told: &str)"), ("eliminate".into(), 2));
        assert_eq!(name_and_arity("set_score(p: i64, parts: Array) -> ()"), ("set_score".into(), 2));
    }

    /// Every registered function is documented, at its arity: a new overload
    /// (`eliminate(p, told)` beside `eliminate(p)`) needs its own entry, and an entry
    /// whose parameters no registration takes is stale.
    #[test]
    fn every_registered_function_is_documented_and_docs_are_current() {
        let engine = crate::script::engine();
        let registered: BTreeSet<(String, usize)> =
            engine.gen_fn_signatures(false).iter().map(|s| name_and_arity(s)).collect();
        let documented: BTreeSet<(String, usize)> = API.iter().map(|e| name_and_arity(e.signature)).collect();
        let show = |set: Vec<&(String, usize)>| set.iter().map(|(n, a)| format!("{n}/{a}")).collect::<Vec<_>>();
        let missing = show(registered.difference(&documented).collect());
        let stale = show(documented.difference(&registered).collect());
        assert!(missing.is_empty(), "registered but undocumented (name/arity): {missing:?}");
        assert!(stale.is_empty(), "documented but not registered (name/arity): {stale:?}");

        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/script-api.md");
        let want = markdown();
        if std::env::var_os("CROWN_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == want, "docs/script-api.md is stale: run CROWN_BLESS=1 cargo test -p crown-engine");
    }
}
