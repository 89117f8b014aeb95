package narwhal.openai;

/**
 * The spelling rules behind {@link CompactJson}: which keys, strings and numbers are written
 * exactly as {@link Json#mapper()} would write them back. Pure functions of the text, each given
 * where a token starts and returning where it ends, or -1 when Jackson would spell the token
 * otherwise (the index then refuses the document). Kept apart from the index, which only builds
 * the node table; these rules are what a Jackson upgrade could change.
 */
final class CanonicalSpelling {

  /** Jackson refuses longer numbers (StreamReadConstraints); so must the fast path. */
  static final int MAX_NUMBER_CHARS = 1000;
  /** {@link #string} flag: the string contains a backslash escape. */
  static final long ESCAPED = 1;
  /** {@link #string} flag: the string contains a surrogate pair. */
  static final long SURROGATES = 2;

  private CanonicalSpelling() {}

  /**
   * A key at {@code pos} (its opening quote): a string without escapes (escaped keys are rare and
   * left to Jackson). Returns the index after its closing quote, or -1.
   */
  static int keyEnd(String text, int pos, int length) {
    int i = pos + 1;
    while (i < length) {
      char c = text.charAt(i);
      if (c == '"') {
        return i + 1;
      }
      if (c == '\\' || c < 0x20 || Character.isSurrogate(c)) {
        return -1;
      }
      i++;
    }
    return -1;
  }

  /**
   * A string value at {@code pos} (its opening quote), allowing only the escapes Jackson itself
   * writes. Returns {@code end << 2} (the index after the closing quote) with the {@link #ESCAPED}
   * and {@link #SURROGATES} flags in the low bits, or -1.
   */
  static long string(String text, int pos, int length) {
    int i = pos + 1;
    long flags = 0;
    while (i < length) {
      char c = text.charAt(i);
      if (c == '"') {
        return ((long) (i + 1) << 2) | flags;
      }
      if (c < 0x20) {
        return -1; // raw control characters are not JSON
      }
      if (c == '\\') {
        flags |= ESCAPED;
        if (i + 1 >= length) {
          return -1;
        }
        char e = text.charAt(i + 1);
        if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
          i += 2;
          continue;
        }
        if (e != 'u' || !isCanonicalUnicodeEscape(text, i + 2, length)) {
          return -1;
        }
        i += 6;
        continue;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= length || !Character.isLowSurrogate(text.charAt(i + 1))) {
          return -1;
        }
        flags |= SURROGATES;
        i += 2;
        continue;
      }
      if (Character.isLowSurrogate(c)) {
        return -1;
      }
      i++;
    }
    return -1;
  }

  /** The value of the string whose content (between the quotes) is {@code [from, to)}, unescaped. */
  static String unescape(String text, int from, int to) {
    StringBuilder out = new StringBuilder(to - from);
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = text.charAt(++i);
      switch (e) {
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          out.append((char) Integer.parseInt(text, i + 1, i + 5, 16));
          i += 4;
        }
        default -> out.append(e); // '"' and '\\'
      }
    }
    return out.toString();
  }

  /**
   * The value of the number spelled in {@code [s, e)} when it is an integer that fits in a {@code
   * long}, or {@code fallback} for anything else (decimals, exponent spellings such as {@code 1E+5},
   * out-of-range integers). An exponent is canonical text the index accepts, so it must reach the
   * fallback rather than {@link Long#parseLong}, which would throw mid-decode.
   */
  static long longValue(String text, int s, int e, long fallback) {
    int digits = e - s - (text.charAt(s) == '-' ? 1 : 0);
    if (digits > 18) {
      return fallback;
    }
    for (int i = s; i < e; i++) {
      char c = text.charAt(i);
      if (c == '.' || c == 'E' || c == 'e') {
        return fallback;
      }
    }
    return Long.parseLong(text, s, e, 10);
  }

  /**
   * Jackson writes {@code \}{@code uXXXX} only for control characters without a short escape,
   * in upper-case hex; any other spelling would be rewritten by a round trip.
   */
  private static boolean isCanonicalUnicodeEscape(String text, int at, int length) {
    if (at + 4 > length || text.charAt(at) != '0' || text.charAt(at + 1) != '0') {
      return false;
    }
    char hi = text.charAt(at + 2);
    char lo = text.charAt(at + 3);
    if ((hi != '0' && hi != '1') || !((lo >= '0' && lo <= '9') || (lo >= 'A' && lo <= 'F'))) {
      return false;
    }
    int v = (hi - '0') * 16 + (lo <= '9' ? lo - '0' : lo - 'A' + 10);
    return v != '\b' && v != '\t' && v != '\n' && v != '\f' && v != '\r';
  }

  /**
   * A number at {@code pos} that Jackson would print back unchanged; returns the index after it,
   * or -1. Integers are printed as written, except {@code -0}. Decimals are read as {@link
   * java.math.BigDecimal} and printed by its {@code toString}: plainly when the scale is not
   * negative and the adjusted exponent is at least -6, otherwise as {@code d.dddE±n}; and never
   * with the sign of a negative zero.
   */
  static int numberEnd(String text, int pos, int length) {
    int s = pos;
    int i = pos;
    boolean negative = text.charAt(i) == '-';
    if (negative) {
      i++;
    }
    if (i >= length) {
      return -1;
    }
    char c = text.charAt(i);
    boolean zeroInteger = c == '0';
    int fracLength = 0;
    if (zeroInteger) {
      i++;
      if (i < length && isDigit(text.charAt(i))) {
        return -1;
      }
    } else if (c >= '1' && c <= '9') {
      while (i < length && isDigit(text.charAt(i))) {
        i++;
      }
    } else {
      return -1;
    }
    if (i < length && text.charAt(i) == '.') {
      i++;
      int fracStart = i;
      while (i < length && isDigit(text.charAt(i))) {
        i++;
      }
      fracLength = i - fracStart;
      if (fracLength == 0) {
        return -1;
      }
      if (zeroInteger && !(i < length && isExponentMark(text.charAt(i)))) {
        int firstNonZero = -1;
        for (int k = fracStart; k < i; k++) {
          if (text.charAt(k) != '0') {
            firstNonZero = k - fracStart;
            break;
          }
        }
        if (firstNonZero < 0 ? negative || fracLength > 6 : firstNonZero > 5) {
          return -1;
        }
      }
    } else if (negative && zeroInteger && !(i < length && isExponentMark(text.charAt(i)))) {
      return -1;
    }
    if (i < length && isExponentMark(text.charAt(i))) {
      i = exponent(text, length, s, i, negative, zeroInteger, fracLength);
      if (i < 0) {
        return -1;
      }
    }
    return i - s > MAX_NUMBER_CHARS ? -1 : i;
  }

  /**
   * The exponent of a number at {@code at} (the {@code E}); returns the index after it, or -1 when
   * BigDecimal would not print this spelling: it writes {@code E}, always a sign, no leading zeros,
   * and uses the form only when the scale is negative or the adjusted exponent is below -6.
   */
  private static int exponent(
      String text, int length, int numberStart, int at, boolean negative, boolean zeroMantissa, int fracLength) {
    int i = at;
    if (text.charAt(i++) != 'E' || i >= length) {
      return -1;
    }
    char sign = text.charAt(i++);
    if ((sign != '+' && sign != '-') || i >= length || text.charAt(i) < '1' || text.charAt(i) > '9') {
      return -1;
    }
    int digitsStart = i;
    while (i < length && isDigit(text.charAt(i))) {
      i++;
    }
    if (i - digitsStart > 9) {
      return -1;
    }
    if (!zeroMantissa) {
      int integerDigits = at - numberStart - (negative ? 1 : 0) - (fracLength > 0 ? fracLength + 1 : 0);
      if (integerDigits != 1) {
        return -1;
      }
    }
    int x = Integer.parseInt(text, digitsStart, i, 10) * (sign == '-' ? -1 : 1);
    if (zeroMantissa) {
      // Zero: "0E+n", or "0E-n" below -6; BigDecimal has no negative zero.
      return !negative && fracLength == 0 && (x > 0 || x < -6) ? i : -1;
    }
    return fracLength < x || x < -6 ? i : -1;
  }

  private static boolean isExponentMark(char c) {
    return c == 'e' || c == 'E';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
