// JSONValue is part of TVEMetadata's API (unknown metadata keys, decrypted values).
@_exported import TVEJSON
