"""Rule sets (docs/rules.md §10 options, §11 presets): immutable, validated, with a JSON form.

Every option of docs/rules.md §10 is here under its id. Two options are this project's own, for the presets that
change pattern values: `fan_values` (pattern id -> multiplier overrides) and `sanyuan_qidui` (whether the
三元七对 pattern exists; only `xiangyang-unlimited` turns it on).

A rule set also carries the `edition` of the reckoning it was made under (not an option: players never choose
it; the JSON form names it only when it is not the current one). When a fix changes what the referee pays,
RULES_EDITION goes up, the old reckoning stays in the engine behind `edition`, and a store migration writes the
old number into every stored table that has dealt a hand and names no edition. So replaying a stored table's
log (crash recovery, `python -m kwx verify`) gives the hands as they were played, and a sitting never changes
its reckoning halfway; a new table plays the current edition.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, NotRequired, TypeAlias, TypedDict


class RulesError(ValueError):
    """An unknown preset or option, or a value out of range; the message says which and why."""


# Default multiplier of every pattern id (docs/rules.md §7). Names and descriptions are in the string catalog
# (kwx/present/locale: pattern.<id>, pattern.<id>.when).
PATTERN_FAN: Mapping[str, int] = MappingProxyType({
    "pinghu": 1,
    "pengpenghu": 2,
    "qingyise": 4,
    "qidui": 4,
    "longqidui": 8,
    "shuanglong_qidui": 16,
    "sanlong_qidui": 32,
    "dasanyuan": 8,
    "xiaosanyuan": 4,
    "kawuxing": 2,
    "mingsigui": 2,
    "ansigui": 4,
    "shouzhuayi": 4,
    "gangshangkaihua": 2,
    "gangshangpao": 2,
    "qiangganghu": 2,
    "haidilao": 2,
    "haidipao": 2,
    "liangdao": 2,
    "sanyuan_qidui": 16,
})

PAYMENT_REASONS = (
    "hu", "baohu", "angang", "bugang", "zhigang", "draw_liangdao", "chajiao", "forbid_feeding", "piao", "maima",
)

# 1: the first reckoning. 2: `draw_liangdao_penalty` `first` pays also when all three declared 亮倒, and 上楼
# doubles only the hand right after a 荒庄 or 一炮双响 (edition 1 climbed ×2 per such hand in a row, to ×8).
RULES_EDITION = 2

OptionValue: TypeAlias = bool | int | str | dict[str, int] | None  # an option's value (a map: pattern → fan)


class RuleSetJson(TypedDict):
    """A rule set's JSON form (`RuleSet.to_json`, read back by `RuleSet.from_json`)."""

    preset: str
    options: dict[str, OptionValue]  # only those that differ from the preset's
    edition: NotRequired[int]  # only when it is not RULES_EDITION


_ONOFF_WORDS = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}


@dataclass(frozen=True)
class RuleSet:
    """One table's rules. Build with `RuleSet.preset(name, **overrides)`; never mutate (it is frozen)."""

    preset_name: str = "standard"
    base: int = 1
    min_fan: int = 1
    min_fan_discard: int = 1
    pindao: str = "half"
    fan_cap: int | None = None
    fan_cap_exceptions: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    shouzhuayi_fan: int = 4
    zhigang_pay: int = 2
    haidilao: bool = True
    haidipao: bool = False
    kawuxing_single_wait: bool = False
    louhu_bigger_ok: bool = False
    draw_dealer: str = "stay"
    draw_liangdao_penalty: str = "each"
    draw_chajiao: bool = False
    liangdao_min_wall: int = 0
    forbid_feeding: bool = False
    piao: int | None = None
    maima: bool = False
    shukan: bool = False
    shanglou: bool = False
    rotation: bool = False
    # project options for the presets that change pattern values
    fan_values: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    sanyuan_qidui: bool = False
    # the reckoning (see RULES_EDITION), kept apart from the options
    edition: int = RULES_EDITION

    def __post_init__(self) -> None:
        # Freeze the mappings so a RuleSet is hashable in spirit and never changes under a table.
        object.__setattr__(self, "fan_cap_exceptions", MappingProxyType(dict(self.fan_cap_exceptions)))
        object.__setattr__(self, "fan_values", MappingProxyType(dict(self.fan_values)))
        _validate(self)

    # -- construction -----------------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str = "standard", **overrides: Any) -> RuleSet:
        if name not in PRESETS:
            raise RulesError(f"unknown rules preset {name!r}: choose one of {', '.join(PRESETS)}")
        values = dict(PRESETS[name])
        values.update(overrides)
        return cls.from_options(values, preset_name=name)

    @classmethod
    def from_options(cls, options: Mapping[str, Any], preset_name: str = "standard") -> RuleSet:
        known = {f.name for f in fields(cls)} - _NOT_OPTIONS
        coerced: dict[str, Any] = {}
        for key, value in options.items():
            if key not in known:
                raise RulesError(f"unknown option {key!r}: options are {', '.join(sorted(known))}")
            coerced[key] = _coerce(key, value)
        return cls(preset_name=preset_name, **coerced)

    @classmethod
    def from_json(cls, spec: str | Mapping[str, Any] | None) -> RuleSet:
        """`"standard"`, `{"preset": "...", "options": {...}}` (with `"edition": n` for an older reckoning), or
        None for the default."""
        if spec is None:
            return cls.preset()
        if isinstance(spec, str):
            return cls.preset(spec)
        if not isinstance(spec, Mapping):
            raise RulesError("rules must be a preset name or {\"preset\": ..., \"options\": {...}}")
        preset = spec.get("preset", "standard")
        options = spec.get("options", {}) or {}
        if not isinstance(options, Mapping):
            raise RulesError("rules options must be an object")
        rules = cls.preset(str(preset), **dict(options))
        if "edition" in spec:
            rules = replace(rules, edition=_int("edition", spec["edition"]))
        return rules

    def to_json(self) -> RuleSetJson:
        """{"preset": name, "options": {only the options that differ from the preset}}, and "edition" when it
        is not the current one."""
        preset_values = RuleSet.preset(self.preset_name).options() if self.preset_name in PRESETS else {}
        diff = {k: v for k, v in self.options().items() if preset_values.get(k) != v}
        out: RuleSetJson = {"preset": self.preset_name, "options": diff}
        if self.edition != RULES_EDITION:
            out["edition"] = self.edition
        return out

    def options(self) -> dict[str, OptionValue]:
        out: dict[str, OptionValue] = {}
        for f in fields(self):
            if f.name in _NOT_OPTIONS:
                continue
            v = getattr(self, f.name)
            out[f.name] = dict(v) if isinstance(v, Mapping) else v
        return out

    # -- derived values ---------------------------------------------------------------------------
    def pattern_fan(self, pattern: str) -> int:
        """The multiplier of a pattern id under these rules."""
        if pattern == "shouzhuayi":
            return self.fan_values.get(pattern, self.shouzhuayi_fan)
        return self.fan_values.get(pattern, PATTERN_FAN[pattern])

    def scored_patterns(self) -> list[tuple[str, int]]:
        """The patterns these rules score, with multipliers, biggest first (ties in PATTERN_FAN order)."""
        off = {p for p, on in (("sanyuan_qidui", self.sanyuan_qidui), ("haidilao", self.haidilao),
                               ("haidipao", self.haidipao)) if not on}
        found = [(p, self.pattern_fan(p)) for p in PATTERN_FAN if p not in off]
        order = list(PATTERN_FAN)
        return sorted(found, key=lambda item: (-item[1], order.index(item[0])))

    @cached_property
    def fan_table(self) -> Mapping[str, int]:
        """Every pattern id's multiplier under these rules, computed once (the fan scorer's hot path)."""
        return MappingProxyType({p: self.pattern_fan(p) for p in PATTERN_FAN})


_NOT_OPTIONS = frozenset({"preset_name", "edition"})


def _coerce(key: str, value: Any) -> Any:
    bool_keys = {"haidilao", "haidipao", "kawuxing_single_wait", "louhu_bigger_ok", "draw_chajiao",
                 "forbid_feeding", "maima", "shukan", "shanglou", "rotation", "sanyuan_qidui"}
    if key in bool_keys:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _ONOFF_WORDS:
            return _ONOFF_WORDS[value.lower()]
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise RulesError(f"option {key} is on or off, not {value!r}")
    if key in ("fan_cap", "piao"):
        if value is None or (isinstance(value, str) and value.lower() in ("none", "off", "")) or value is False:
            return None
        return _int(key, value)
    if key in ("base", "min_fan", "min_fan_discard", "shouzhuayi_fan", "zhigang_pay", "liangdao_min_wall"):
        return _int(key, value)
    if key in ("fan_cap_exceptions", "fan_values"):
        if not isinstance(value, Mapping):
            raise RulesError(f"option {key} is a map of pattern id to multiplier")
        return {str(k): _int(f"{key}.{k}", v) for k, v in value.items()}
    return value


def _int(key: str, value: Any) -> int:
    if isinstance(value, bool):
        raise RulesError(f"option {key} is a whole number, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise RulesError(f"option {key} is a whole number, not {value!r}")


def _validate(r: RuleSet) -> None:
    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise RulesError(msg)

    need(isinstance(r.base, int) and 1 <= r.base <= 1_000_000, "base must be a whole number from 1 to 1,000,000")
    need(isinstance(r.min_fan, int) and 1 <= r.min_fan <= 1024, "min_fan must be a whole number ≥ 1")
    need(isinstance(r.min_fan_discard, int) and 1 <= r.min_fan_discard <= 1024, "min_fan_discard must be ≥ 1")
    need(r.pindao in ("half", "full"), "pindao is half or full")
    need(r.fan_cap is None or (isinstance(r.fan_cap, int) and r.fan_cap >= 1), "fan_cap is none or a whole number ≥ 1")
    for pid, cap in r.fan_cap_exceptions.items():
        need(pid in PATTERN_FAN, f"fan_cap_exceptions names an unknown pattern {pid!r}")
        need(isinstance(cap, int) and cap >= 1, f"fan_cap_exceptions.{pid} must be ≥ 1")
    for pid, val in r.fan_values.items():
        need(pid in PATTERN_FAN, f"fan_values names an unknown pattern {pid!r}")
        need(isinstance(val, int) and val >= 1, f"fan_values.{pid} must be ≥ 1")
    need(r.shouzhuayi_fan in (2, 4), "shouzhuayi_fan is 2 or 4")
    need(r.zhigang_pay in (1, 2), "zhigang_pay is 1 or 2")
    need(r.draw_dealer in ("stay", "first_liangdao"), "draw_dealer is stay or first_liangdao")
    need(r.draw_liangdao_penalty in ("each", "first"), "draw_liangdao_penalty is each or first")
    need(isinstance(r.liangdao_min_wall, int) and 0 <= r.liangdao_min_wall <= 84, "liangdao_min_wall is 0–84")
    need(r.piao is None or (isinstance(r.piao, int) and 1 <= r.piao <= 100), "piao is off or a maximum from 1 to 100")
    need(isinstance(r.edition, int) and 1 <= r.edition <= RULES_EDITION, f"edition is 1 to {RULES_EDITION}")


PRESETS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "standard": {},
    "xiangyang-capped": {"fan_cap": 8, "fan_cap_exceptions": {"shuanglong_qidui": 16}},
    "xiangyang-unlimited": {
        "fan_cap": None,
        "fan_values": {"longqidui": 8, "shuanglong_qidui": 32, "sanlong_qidui": 128, "sanyuan_qidui": 16},
        "sanyuan_qidui": True,
    },
    "xiaogan": {"shukan": True, "liangdao_min_wall": 12, "maima": True, "piao": 3},
    "shiyan": {"shanglou": True, "piao": 3},
    "online-3d": {"min_fan": 2, "forbid_feeding": True, "draw_chajiao": True, "maima": True, "piao": 3,
                  "pindao": "full"},
})

STANDARD = RuleSet()
