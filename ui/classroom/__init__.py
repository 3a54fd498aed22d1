"""The class session on the page: the teacher's controls and Class panel, a student's banner and
the poll that follows the teacher, this browser's part in a class, the questions, and the Join a
class box. The frame calls ``arrive`` before its controls and ``in_class`` after them."""

from ui.classroom.session import arrive, class_link_params, in_class, report_check

__all__ = ["arrive", "class_link_params", "in_class", "report_check"]
