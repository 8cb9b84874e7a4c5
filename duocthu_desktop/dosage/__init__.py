"""The dosage section as data: `Liều lượng và cách dùng` read once, at ingest, into dose statements (`DoseRow`),
and the filter that chooses the rows that fit one patient.

`reading` cuts a section into labels and statements, `parser` walks the headings the book prints and gives each
statement the fields it inherits (CONTRACT "dosing.jsonl"), `fit` matches rows to a `QueryFrame`, `titles` composes
a block title from a row's typed fields.
"""
