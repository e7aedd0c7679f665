-- Browser login tokens expire; file-backed tokens do not (NULL).
ALTER TABLE tokens ADD COLUMN expires_ns INTEGER;
