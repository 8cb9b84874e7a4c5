"""Every Vietnamese sentence the core shows a person for a reason code, plus the fixed disclaimer.

One message per CONTRACT reason code (a test fails when one is missing). An outage never reads as
"the book has no data": provider and understanding failures say the model is unavailable.
"""

from __future__ import annotations

from duocthu_desktop.payload import Reason

DISCLAIMER = (
    "Nội dung được trích từ Dược thư Quốc gia Việt Nam 2018, chỉ để tham khảo cho nhân viên y tế; "
    "không thay thế phán đoán lâm sàng. Luôn đối chiếu trang sách được trích dẫn trước khi dùng thuốc."
)

NOT_SAFE = "Điều này KHÔNG có nghĩa là an toàn khi phối hợp."
# A monograph that prints no Tương tác thuốc section, asked about its interactions.
NO_INTERACTION_SECTION = "Chuyên luận {drug} trong Dược thư không có mục Tương tác thuốc. " + NOT_SAFE
NO_INFERENCE = "Không suy ra thuốc là phù hợp/an toàn."
# An index that fails while a turn reads it (reason provider_unavailable): an outage, not a gap in the book.
INDEX_UNAVAILABLE = (
    "Không đọc được chỉ mục tra cứu Dược thư (sự cố kỹ thuật, không phải Dược thư thiếu dữ liệu). "
    "Hãy thử lại; nếu vẫn lỗi, cần dựng lại chỉ mục bằng `duocthu-ingest build`."
)
# A Chroma server that stops answering (server mode, DUOCTHU_CHROMA_URL; reason provider_unavailable): the server
# is down, the index need not be rebuilt.
SERVER_UNAVAILABLE = (
    "Máy chủ chỉ mục Chroma không phản hồi (sự cố kỹ thuật, không phải Dược thư thiếu dữ liệu). Hãy kiểm tra máy "
    "chủ đang chạy và địa chỉ DUOCTHU_CHROMA_URL, rồi thử lại; không cần dựng lại chỉ mục."
)
# Server mode with a local index configured as the fallback: said once, in one line, when it is used.
FELL_BACK_AT_OPEN = (
    "Không dùng được máy chủ chỉ mục Chroma ({url}); đang trả lời từ chỉ mục trên máy này ({folder})."
)
FELL_BACK_MID_SESSION = (
    "Máy chủ chỉ mục Chroma ({url}) vừa ngừng phản hồi; từ câu này, câu trả lời lấy từ chỉ mục trên máy này "
    "({folder}), cùng một bản chỉ mục."
)
# No Chỉ định holds the words asked and the search by meaning cannot run (embedding model missing, damaged or
# refused by its hash; reason provider_unavailable): an outage, not "the book has no such drug".
EMBEDDER_UNAVAILABLE = (
    "Không có thuốc nào ghi đúng cụm từ này trong mục Chỉ định, và không tìm theo nghĩa được vì mô hình tìm kiếm "
    "bị thiếu hoặc hỏng (sự cố kỹ thuật, không phải Dược thư thiếu dữ liệu). Hãy thử dùng đúng từ ngữ của sách, "
    "hoặc báo quản trị viên chạy `duocthu-models verify`."
)
# The models folder (DUOCTHU_MODELS_DIR, or the cache's) cannot be read by this user: its permissions, not the book.
MODEL_FOLDER_UNREADABLE = (
    "Không đọc được thư mục mô hình {folder} ({reason}): đây là sự cố kỹ thuật, không phải Dược thư thiếu dữ "
    "liệu. Hãy báo quản trị viên cấp quyền đọc thư mục này cho người dùng đang chạy ứng dụng (hoặc đặt "
    "DUOCTHU_MODELS_DIR tới một thư mục đọc được); trong lúc đó hãy dùng chế độ trích nguyên văn."
)
GREETING = (
    "Xin chào! Tôi tra cứu Dược thư Quốc gia Việt Nam 2018. Hãy hỏi về liều dùng, chỉ định, chống chỉ định, "
    "tương tác, thời kỳ mang thai/cho con bú, bảo quản... của một thuốc; mọi câu trả lời đều trích trang sách."
)
# A patient value outside what a patient can have (qa.plausibility), repeated as read and asked again.
IMPLAUSIBLE_READ = {
    "weight": "Cân nặng đọc được là {read}",
    "age": "Tuổi đọc được là {read}",
    "clcr": "Độ thanh thải creatinin (Clcr) đọc được là {read}",
}
IMPLAUSIBLE_NAMES = {"weight": "cân nặng (kg)", "age": "tuổi", "clcr": "Clcr (ml/phút)"}
IMPLAUSIBLE_ASK = (
    "{reads}, có đúng không? Giá trị này nằm ngoài khoảng có thể có ở người bệnh; xin nhập lại {names}."
)
TOO_MANY_DIGITS = "một số dài hơn {n} chữ số"
QUESTION_TOO_LONG = (
    "Câu hỏi dài {n} ký tự, quá dài để đọc an toàn (tối đa {limit} ký tự). Vui lòng hỏi ngắn gọn hơn: tên thuốc, "
    "điều cần biết và thông tin người bệnh (tuổi, cân nặng, Clcr, mang thai...)."
)

# The generative engine showed the extractive answer instead of the model's wording (and why).
GENERATIVE_FALLBACK = (
    "Câu trả lời này trích nguyên văn từ sách (chế độ trích nguyên văn): bản do mô hình ngôn ngữ viết không được "
    "hiển thị vì {why}."
)
# A verify-PDF answer or a cancelled turn under the generative engine: the book's words, never rewritten.
GENERATIVE_AS_PRINTED = "Câu trả lời này trích nguyên văn từ sách (chế độ trích nguyên văn)."
GENERATIVE_TOO_LONG = "phần bằng chứng quá dài để mô hình viết lại và kiểm tra trong giới hạn thời gian"
GENERATIVE_WHY: dict[Reason, str] = {
    Reason.MALFORMED_OUTPUT: "mô hình trả về kết quả sai định dạng",
    Reason.UNGROUNDED_NUMBER: "có con số không đúng nguyên văn sách",
    Reason.INVALID_CITATION: "có trích dẫn không hợp lệ",
    Reason.UNCITED_CLAIM: "có ý không kèm trích dẫn",
    Reason.UNSUPPORTED_CLAIM: "có ý không được đoạn trích dẫn hỗ trợ",
    Reason.UNSUPPORTED_DRUG: "có ý gán cho thuốc không đúng bằng chứng",
    Reason.INCOMPLETE_ANSWER: "bản viết thiếu thông tin có trong bằng chứng",
    Reason.REQUEST_BUDGET_EXHAUSTED: "mô hình chưa viết xong trong thời gian cho phép",
    Reason.PROVIDER_UNAVAILABLE: "mô hình ngôn ngữ gặp lỗi khi chạy (không phải Dược thư thiếu dữ liệu)",
}
# The model was asked to read a question the app read unsure, and could not: the app's own reading is answered.
MODEL_READING_FAILED = "Mô hình ngôn ngữ không đọc lại được câu hỏi ({why}): câu trả lời theo cách ứng dụng tự đọc câu hỏi."
MODEL_READING_WHY: dict[Reason, str] = {
    Reason.REQUEST_BUDGET_EXHAUSTED: "hết thời gian cho phép",
    Reason.UNDERSTANDING_PROVIDER_UNAVAILABLE: "mô hình gặp lỗi khi chạy",
    Reason.UNDERSTANDING_MALFORMED_OUTPUT: "mô hình trả về kết quả không dùng được",
}

MESSAGES: dict[Reason, str] = {
    # clarify
    Reason.MISSING_POPULATION: "Bạn hỏi liều cho đối tượng nào: người lớn hay trẻ em?",
    Reason.MISSING_PEDIATRIC_AGE_OR_WEIGHT: "Để chọn đúng mức liều cho trẻ, xin cho biết tuổi và cân nặng của bé.",
    Reason.MISSING_ROUTE: "Dược thư ghi liều khác nhau theo đường dùng. Bạn dùng đường nào?",
    Reason.NEEDS_MORE_INFO: "Xin cho biết thêm thông tin để tra đúng phần của Dược thư.",
    Reason.AMBIGUOUS_CONDITION: "Tình trạng bạn nêu có thể hiểu theo nhiều cách. Bạn muốn tra chỉ định nào?",
    Reason.NO_CONDITION: "Bạn muốn tìm thuốc cho bệnh hoặc triệu chứng nào?",
    Reason.NO_INDICATION: "Không tìm thấy thuốc nào trong Dược thư có chỉ định khớp với tình trạng này. Bạn có thể diễn đạt khác không?",
    Reason.MISSING_ATTRIBUTE: "Bạn muốn biết thông tin gì về thuốc này (liều dùng, chỉ định, chống chỉ định, tương tác, ...)?",
    Reason.NO_DRUG: "Bạn hỏi về thuốc nào?",
    # abstain
    Reason.OUT_OF_SCOPE: "Câu hỏi nằm ngoài phạm vi: ứng dụng chỉ tra cứu thông tin thuốc dùng cho người theo Dược thư Quốc gia Việt Nam 2018.",
    Reason.DRUG_NOT_IN_FORMULARY: "Không có chuyên luận cho thuốc này trong Dược thư đang dùng: {names}.",
    Reason.UNSUPPORTED_REVERSE_RELATION: "Ứng dụng không trả lời câu hỏi dạng \"thuốc nào gây ra ...\": Dược thư không được sắp xếp để liệt kê đầy đủ như vậy, và một danh sách thiếu có thể gây hiểu lầm.",
    Reason.NO_INTERACTION_EVIDENCE: "Không tìm thấy tương tác giữa {names} trong các mục Chống chỉ định, Tương tác thuốc và Thận trọng của từng thuốc. " + NOT_SAFE,
    Reason.CLARIFY_LOOP_EXHAUSTED: "Chưa đủ thông tin sau nhiều lần hỏi lại. Xin đặt lại câu hỏi đầy đủ: tên thuốc, điều cần biết và đối tượng dùng.",
    Reason.MISSING_PROVENANCE: "Không thể trả lời: đoạn trích tìm được thiếu thông tin trang sách nên không thể trích dẫn.",
    Reason.PARENT_HYDRATION_FAILED: "Không tìm thấy mục tương ứng trong chuyên luận của thuốc này trong chỉ mục.",
    Reason.EVIDENCE_INSUFFICIENT: "Các đoạn trích tìm được không đủ để trả lời câu hỏi này.",
    Reason.UNGROUNDED_NUMBER: "Câu trả lời bị chặn: có con số không có nguyên văn trong đoạn trích dẫn.",
    Reason.INVALID_CITATION: "Câu trả lời bị chặn: có trích dẫn không trỏ tới đoạn bằng chứng hợp lệ.",
    Reason.UNCITED_CLAIM: "Câu trả lời bị chặn: có nội dung không kèm trích dẫn.",
    Reason.UNSUPPORTED_CLAIM: "Câu trả lời bị chặn: có nội dung không được đoạn trích dẫn hỗ trợ.",
    Reason.UNSUPPORTED_DRUG: "Câu trả lời bị chặn: nhắc tới thuốc không có trong bằng chứng đã tra.",
    Reason.INCOMPLETE_ANSWER: "Câu trả lời bị chặn: thiếu phần thông tin bắt buộc có trong bằng chứng.",
    Reason.MALFORMED_OUTPUT: "Mô hình ngôn ngữ trả về kết quả sai định dạng; không hiển thị để tránh sai lệch.",
    Reason.PROVIDER_UNAVAILABLE: "Mô hình ngôn ngữ hiện không sẵn sàng (chưa cài hoặc không phản hồi). Đây là sự cố kỹ thuật, không phải Dược thư thiếu dữ liệu; hãy dùng chế độ trích nguyên văn.",
    Reason.REQUEST_BUDGET_EXHAUSTED: "Đã vượt giới hạn thời gian/số lượt xử lý cho câu hỏi này. Đây là giới hạn kỹ thuật, không phải Dược thư thiếu dữ liệu.",
    Reason.UNDERSTANDING_PROVIDER_UNAVAILABLE: "Bộ phân tích câu hỏi hiện không sẵn sàng. Đây là sự cố kỹ thuật, không phải Dược thư thiếu dữ liệu.",
    Reason.UNDERSTANDING_MALFORMED_OUTPUT: "Bộ phân tích câu hỏi trả về kết quả sai định dạng. Đây là sự cố kỹ thuật, không phải Dược thư thiếu dữ liệu.",
    # answerable / verify
    Reason.SMALLTALK: GREETING,
    Reason.QUARANTINED_EVIDENCE: "Một phần bằng chứng là bảng hoặc văn bản mà máy đọc không chắc chắn: hãy đối chiếu trực tiếp trang PDF được trích dẫn trước khi dùng.",
}


def message_for(reason: Reason | str, **fields: str) -> str:
    """The Vietnamese message for a reason code, with `{names}`-style fields filled in."""
    text = MESSAGES[Reason(reason)]
    return text.format(**fields) if fields else text.replace("{names}", "").replace(":  .", ".")
