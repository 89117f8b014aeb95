package narwhal.bench.load;

import java.util.Arrays;

/**
 * Pulls one string value out of a JSON object's bytes without building a tree: what the generator
 * needs from every streamed chunk ({@code "text"}), at a cost of one scan.
 *
 * <p>Finding {@code "key":} by byte search is sound in JSON: inside a string every quote is
 * escaped, so an unescaped {@code "key"} followed by a colon can only be a key. The decoded value
 * is written as UTF-8 into a reusable buffer. Not thread-safe.
 */
public final class JsonStringScanner {

  private final byte[] needle;
  private byte[] value = new byte[64];
  private int valueLength;

  public JsonStringScanner(String key) {
    this.needle = ("\"" + key + "\"").getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The decoded bytes of the last {@link #find}; valid until the next call. */
  public byte[] value() {
    return value;
  }

  public int valueLength() {
    return valueLength;
  }

  /**
   * Finds the key's string value in {@code json[0, length)}; false when the key is absent, its
   * value is not a string (e.g. null) or the string is malformed.
   */
  public boolean find(byte[] json, int length) {
    valueLength = 0;
    int at = indexOf(json, length, 0);
    while (at >= 0) {
      int i = skipSpaces(json, length, at + needle.length);
      if (i < length && json[i] == ':') {
        i = skipSpaces(json, length, i + 1);
        return i < length && json[i] == '"' && decode(json, length, i + 1);
      }
      at = indexOf(json, length, at + 1);
    }
    return false;
  }

  private boolean decode(byte[] json, int length, int start) {
    int i = start;
    while (i < length) {
      byte b = json[i];
      if (b == '"') {
        return true;
      }
      if (b != '\\') {
        put(b);
        i++;
        continue;
      }
      if (i + 1 >= length) {
        return false;
      }
      byte e = json[i + 1];
      switch (e) {
        case '"', '\\', '/' -> put(e);
        case 'b' -> put((byte) '\b');
        case 'f' -> put((byte) '\f');
        case 'n' -> put((byte) '\n');
        case 'r' -> put((byte) '\r');
        case 't' -> put((byte) '\t');
        case 'u' -> {
          int cp = hex4(json, length, i + 2);
          if (cp < 0) {
            return false;
          }
          i += 6;
          if (Character.isHighSurrogate((char) cp) && i + 5 < length && json[i] == '\\' && json[i + 1] == 'u') {
            int low = hex4(json, length, i + 2);
            if (low >= 0 && Character.isLowSurrogate((char) low)) {
              cp = Character.toCodePoint((char) cp, (char) low);
              i += 6;
            }
          }
          putCodePoint(cp);
          continue;
        }
        default -> {
          return false;
        }
      }
      i += 2;
    }
    return false;
  }

  private static int hex4(byte[] json, int length, int from) {
    if (from + 4 > length) {
      return -1;
    }
    int v = 0;
    for (int k = 0; k < 4; k++) {
      int d = Character.digit(json[from + k], 16);
      if (d < 0) {
        return -1;
      }
      v = (v << 4) | d;
    }
    return v;
  }

  private void putCodePoint(int cp) {
    if (cp < 0x80) {
      put((byte) cp);
    } else if (cp < 0x800) {
      put((byte) (0xC0 | (cp >> 6)));
      put((byte) (0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      put((byte) (0xE0 | (cp >> 12)));
      put((byte) (0x80 | ((cp >> 6) & 0x3F)));
      put((byte) (0x80 | (cp & 0x3F)));
    } else {
      put((byte) (0xF0 | (cp >> 18)));
      put((byte) (0x80 | ((cp >> 12) & 0x3F)));
      put((byte) (0x80 | ((cp >> 6) & 0x3F)));
      put((byte) (0x80 | (cp & 0x3F)));
    }
  }

  private void put(byte b) {
    if (valueLength == value.length) {
      value = Arrays.copyOf(value, value.length * 2);
    }
    value[valueLength++] = b;
  }

  private static int skipSpaces(byte[] json, int length, int i) {
    while (i < length && (json[i] == ' ' || json[i] == '\t' || json[i] == '\n' || json[i] == '\r')) {
      i++;
    }
    return i;
  }

  private int indexOf(byte[] json, int length, int from) {
    outer:
    for (int i = from; i <= length - needle.length; i++) {
      for (int k = 0; k < needle.length; k++) {
        if (json[i + k] != needle[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
