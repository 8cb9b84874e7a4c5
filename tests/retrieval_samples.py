"""A handful of hand-made chunks shaped like the sample book's, for retrieval unit tests (no PDF, no model)."""

from __future__ import annotations

from duocthu_desktop.artifacts import Chunk, Monograph, SectionSpan


def chunk(drug_id: str, key: str, part: int, text: str, printed: list[int], physical: list[int], **extra) -> Chunk:
    table_id = extra.get("table_id")
    cid = f"{drug_id}__{key}__block__{table_id}" if table_id else f"{drug_id}__{key}__{part}"
    return Chunk(chunk_id=cid, drug_id=drug_id, section_key=key, part_index=part, text=text,
                 printed_pages=printed, physical_pages=physical, **extra)


def sample_chunks() -> list[Chunk]:
    return [
        chunk("amlodipin", "chi_dinh", 0, "Tăng huyết áp. Đau thắt ngực ổn định mạn tính.", [130], [8],
              heading="Chỉ định"),
        chunk("amlodipin", "lieu_luong_cach_dung", 0, "Liều khởi đầu 5 mg, 1 lần mỗi ngày.", [131], [9]),
        chunk("captopril", "chi_dinh", 0, "Tăng  huyết\náp (mọi mức độ). Suy tim sung huyết.", [300], [20],
              heading="Chỉ định"),
        chunk("captopril", "chong_chi_dinh", 0, "Hẹp động mạch thận hai bên.", [300], [20]),
        chunk("paracetamol", "chi_dinh", 0, "Giảm đau nhẹ và vừa; hạ sốt.", [1120], [46], heading="Chỉ định"),
        chunk("paracetamol", "lieu_luong_cach_dung", 0, "Người lớn: 325 - 650 mg mỗi 4 - 6 giờ.", [1121], [47]),
        chunk("paracetamol", "lieu_luong_cach_dung", 2, "Trẻ em cân nặng 10 - 50 kg: 15 mg/kg.", [1122], [48]),
        chunk("paracetamol", "lieu_luong_cach_dung", 1, "Trẻ em 4 - 6 tuổi: 240 mg.", [1121, 1122], [47, 48]),
        chunk("paracetamol", "tuong_tac_thuoc", 0, "| Thuốc | Tương tác |\n| Warfarin | tăng INR |", [1122], [48],
              kind="table", quarantined=True, quarantine_reason="table", table_id="t1"),
        chunk("warfarin", "chi_dinh", 0, "Dự phòng và điều trị huyết khối tĩnh mạch sâu.", [1480], [55]),
        chunk("warfarin", "thoi_ky_mang_thai", 0, "Chống chỉ định.", [], []),
        chunk("huyet_ap_test", "chi_dinh", 0, "Điều trị hạ huyết áp tư thế.", [1500], [56]),
    ]


def sample_monographs() -> list[Monograph]:
    spans = {
        "amlodipin": ("AMLODIPIN", 8, 9, 130, 131),
        "captopril": ("CAPTOPRIL", 20, 20, 300, 300),
        "paracetamol": ("PARACETAMOL (Acetaminophen)", 46, 48, 1120, 1122),
        "warfarin": ("WARFARIN", 55, 55, 1480, 1480),
        "huyet_ap_test": ("HUYET AP TEST", 56, 56, 1500, 1500),
    }
    return [
        Monograph(drug_id=d, title=t, start_physical=sp, end_physical=ep, start_printed=s, end_printed=e,
                  sections=[SectionSpan(key="chi_dinh", heading="Chỉ định", start_printed=s, end_printed=s)])
        for d, (t, sp, ep, s, e) in spans.items()
    ]
