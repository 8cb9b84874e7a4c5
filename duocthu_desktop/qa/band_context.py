"""The labels a band inherits: `Level` (one printed heading on the stack), `Band` (a verbatim span and the group it
applies to) and the rules for how an indication heading nests among the headings already read.
"""

from __future__ import annotations

from dataclasses import dataclass

from duocthu_desktop.artifacts import Chunk
from duocthu_desktop.qa.band_labels import Attrs, Range


@dataclass
class Level:
    """One inherited label: its kind (population, indication, route, organ) and words as printed."""

    kind: str
    label: str
    attrs: Attrs
    paragraph_only: bool = (
        False  # an inline label ("Bệnh nhân suy gan: Liều ... giảm.") ends with its paragraph
    )
    major: bool = False  # a heading alone on its line ("Đau, sốt:"), not a label leading its own text


@dataclass
class Band:
    """A verbatim piece of a dosage section and the group it applies to."""

    chunk: Chunk
    start: int
    end: int
    label: str | None  # its own label as printed, when it has one ("Trẻ em 4 - 6 tuổi")
    own: Attrs
    context: list[Level]
    part: str  # "cach_dung" (the general how-to-use part) or "lieu" (doses)
    labelled: bool = False  # `own` was read from a printed label (else from the sentence's words)

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]

    def levels(self, kind: str) -> list[Level]:
        return [lv for lv in self.context if lv.kind == kind]

    @property
    def routes(self) -> set[str]:
        if self.own.routes:
            return set(self.own.routes)
        for lv in reversed(self.context):
            if lv.attrs.routes:
                return set(lv.attrs.routes)
        return set()

    @property
    def context_populations(self) -> set[str]:
        for lv in reversed(self.context):
            if lv.attrs.populations:
                return set(lv.attrs.populations)
        return set()

    def _inherited_from_indication(self) -> bool:
        for lv in reversed(self.context):
            if lv.attrs.populations:
                return lv.kind == "indication"
        return False

    @property
    def populations(self) -> set[str]:
        inherited = self.context_populations
        if self.own.populations:
            if not self.labelled and inherited and not (self.own.populations & inherited):
                # A group word inside a sentence ("nhiễm khuẩn huyết sơ sinh") under a printed group label:
                # the printed label decides. But an age range opening the band ("Từ trên 12 tuổi – 18 tuổi, liều
                # 2 mg/kg") under an indication heading that merely names a group ("Nhiễm khuẩn huyết sơ sinh:")
                # is this band's own group.
                if not (self.own.age is not None and self._inherited_from_indication()):
                    return inherited
            return set(self.own.populations)
        return inherited

    @property
    def indication(self) -> str | None:
        found = self.levels("indication")
        return found[-1].label if found else None

    @property
    def organ(self) -> str | None:
        found = self.levels("organ")
        return found[-1].label if found else None

    def range_of(self, name: str) -> Range | None:
        value = getattr(self.own, name)
        if value is not None:
            return value
        for lv in reversed(self.context):
            value = getattr(lv.attrs, name)
            if value is not None:
                return value
        return None


def push_indication(stack: list[Level], level: Level, leads: bool, content: bool) -> None:
    """Nest an indication heading: under the heading just read when nothing came between, else beside its sibling.

    "Trẻ em:" then "Đau, sốt:" nest; a later "Đau sau phẫu thuật:" replaces "Đau, sốt:" and keeps "Trẻ em:";
    "Nhiễm Helicobacter pylori:" after "Nhiễm vi khuẩn...: Người lớn: ..." replaces the first heading and the group
    under it; a label leading its own text ("Nhiễm khuẩn nặng: 500 mg") replaces the previous such label.
    """
    if stack and stack[0].kind == "organ" and level.attrs.populations:
        stack.clear()  # "Cách dùng và liều lượng ở trẻ em:" leaves the renal/hepatic part
    if level.major and level.attrs.populations:
        # "Người lớn (khuyến cáo đối với một số bệnh cụ thể):" after "Một số chỉ định đặc biệt đối với trẻ em:"
        # leaves the children's headings: an adult dose must never sit under a children's title.
        drop_other_groups(stack, level.attrs.populations)
    # A route label leading its own text ("Uống: 5 mg") never holds an indication; a route heading does.
    minor_route = next((i for i, lv in enumerate(stack) if lv.kind == "route" and not lv.major), None)
    if minor_route is not None:
        del stack[minor_route:]
    if not content and stack:
        stack.append(level)
        return
    # An indication heading that names a group ("Một số chỉ định đặc biệt đối với trẻ em:") heads that group's
    # indications like a population heading: the indications under it replace each other, not it.
    grouped = [i for i, lv in enumerate(stack) if lv.kind == "indication" and lv.major and lv.attrs.populations]
    floor = max(grouped, default=-1) if not level.attrs.populations else -1
    majors = [i for i, lv in enumerate(stack) if lv.kind == "indication" and lv.major and i > floor]
    minors = [i for i, lv in enumerate(stack) if lv.kind == "indication" and not lv.major and i > floor]
    groups = [i for i, lv in enumerate(stack) if lv.kind == "population" or i in grouped]
    if not level.major and minors and minors[-1] > max(majors + groups, default=-1):
        del stack[minors[-1] :]
    elif level.major or (leads and groups):
        if majors:
            del stack[majors[-1] :]
        elif minors:
            del stack[minors[0] :]
        elif groups and content:
            del stack[floor + 1 :]
    elif minors:
        del stack[minors[-1] :]
    stack.append(level)


def drop_other_groups(stack: list[Level], populations: set[str]) -> None:
    """Cut the stack at the first heading that names a group other than `populations`."""
    for i, lv in enumerate(stack):
        if lv.attrs.populations and not (lv.attrs.populations & populations):
            del stack[i:]
            return



def first_of(stack: list[Level], kinds: tuple[str, ...]) -> int:
    """Index of the first heading of one of `kinds` (the stack's length when there is none): where to cut it."""
    for i, lv in enumerate(stack):
        if lv.kind in kinds:
            return i
    return len(stack)
