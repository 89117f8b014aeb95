package narwhal.openai;

import java.util.Arrays;

/**
 * A reusable, allocation-free index of one JSON object that is already in the router's canonical
 * form: exactly the text {@link Json#mapper()} writes after reading it (compact, Jackson's escapes,
 * numbers as it prints them, no duplicate keys).
 *
 * <p>Why: the relay path handles every token chunk twice, once to classify it and once to
 * re-stamp it for the client. Reading canonical text into a tree and writing it back is the
 * identity, so for such text the relay can pick values out and splice spans instead of building
 * trees (that round trip was half the router's CPU per token). {@link #index} refuses anything
 * else: whitespace, other escape spellings, exponents, numbers Jackson would re-spell, duplicate
 * keys, deep nesting, invalid JSON. Callers then take the Jackson path, which keeps its exact
 * behaviour for those inputs, so the index is a fast path and never a second JSON dialect.
 *
 * <p>Nodes are numbered in document order; the root object is node 0. Every node has a value span
 * {@code [start, end)}; members of an object also have a key span {@code [keyStart, keyEnd)}, the
 * quotes included. Object keys never contain escapes (those are refused too), so a key's text is
 * what lies between its quotes.
 *
 * <p>Not thread-safe: keep one per thread ({@link #forThisThread()}) or per stream.
 */
public final class CompactJson {

  public static final int OBJECT = 1;
  public static final int ARRAY = 2;
  public static final int STRING = 3;
  public static final int NUMBER = 4;
  public static final int TRUE = 5;
  public static final int FALSE = 6;
  public static final int NULL = 7;
  /** No such node. */
  public static final int NONE = -1;
  /** Parser-internal: a comma followed a container member, so another member follows. */
  private static final int MORE = -2;

  /** Deeper documents are left to Jackson (whose own limit is 1,000). */
  private static final int MAX_DEPTH = 64;
  /** Jackson refuses longer numbers (StreamReadConstraints); so must the fast path. */
  private static final int MAX_NUMBER_CHARS = 1000;
  /** Keys are compared pairwise for duplicates; objects wider than this go to Jackson. */
  private static final int MAX_MEMBERS = 128;
  /** Arrays kept after indexing an unusually large document, so one huge chunk is not kept forever. */
  private static final int RETAINED_NODES = 1024;

  private static final ThreadLocal<CompactJson> PER_THREAD = ThreadLocal.withInitial(CompactJson::new);

  private String text = "";
  private int length;
  private int pos;
  private int count;
  private int[] kind = new int[32];
  private int[] start = new int[32];
  private int[] end = new int[32];
  private int[] keyStart = new int[32];
  private int[] keyEnd = new int[32];
  private int[] next = new int[32];
  private int[] first = new int[32];
  /** Per node: a string value containing a backslash escape. */
  private boolean[] escaped = new boolean[32];
  private boolean surrogates;

  /** This thread's instance; its contents are replaced by every {@link #index} on the thread. */
  public static CompactJson forThisThread() {
    return PER_THREAD.get();
  }

  /**
   * Indexes {@code json}; true when it is one JSON object in canonical form (see the class
   * comment). On false the index is empty and the caller should use Jackson.
   */
  public boolean index(String json) {
    if (json == text) {
      // The very string indexed last (identity, not equality): the relay indexes each chunk once
      // to classify it and again, on the same thread, to re-stamp it; the second is free.
      return count > 0;
    }
    if (kind.length > RETAINED_NODES) {
      allocate(32);
    }
    text = json;
    length = json.length();
    pos = 0;
    count = 0;
    surrogates = false;
    if (length == 0 || json.charAt(0) != '{') {
      count = 0;
      return false;
    }
    boolean ok = false;
    try {
      ok = value(0) == 0 && pos == length;
    } finally {
      if (!ok) {
        count = 0; // also when indexing threw: a later call with this string must not see half an index
      }
    }
    return ok;
  }

  /**
   * True when a string holds a character outside the Basic Multilingual Plane (a surrogate pair).
   * Jackson's UTF-8 writer escapes those as {@code \}{@code uD83D\}{@code uDE00} where its text
   * writer keeps them, so byte output must escape them to match.
   */
  public boolean hasSurrogates() {
    return surrogates;
  }

  /** The indexed text. */
  public String text() {
    return text;
  }

  public int root() {
    return count == 0 ? NONE : 0;
  }

  public int kind(int node) {
    return kind[node];
  }

  public int start(int node) {
    return start[node];
  }

  public int end(int node) {
    return end[node];
  }

  /** Where a member's key begins (its opening quote); {@link #NONE} outside objects. */
  public int keyStart(int node) {
    return keyStart[node];
  }

  /** Just after a member's closing key quote. */
  public int keyEnd(int node) {
    return keyEnd[node];
  }

  /** The first member or element of an object or array, or {@link #NONE}. */
  public int first(int node) {
    return first[node];
  }

  /** The next member or element of the same parent, or {@link #NONE}. */
  public int next(int node) {
    return next[node];
  }

  /** True when this member's key is exactly {@code name}. */
  public boolean keyIs(int node, String name) {
    int k = keyStart[node];
    return k >= 0 && keyEnd[node] - k - 2 == name.length() && text.regionMatches(k + 1, name, 0, name.length());
  }

  /** The member of {@code object} named {@code name}, or {@link #NONE}. */
  public int member(int object, String name) {
    if (object == NONE || kind[object] != OBJECT) {
      return NONE;
    }
    for (int n = first[object]; n != NONE; n = next[n]) {
      if (keyIs(n, name)) {
        return n;
      }
    }
    return NONE;
  }

  /** The string node's value, unescaped. */
  public String string(int node) {
    int from = start[node] + 1;
    int to = end[node] - 1;
    if (!escaped[node]) {
      return text.substring(from, to);
    }
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

  /** True for a string node whose value is empty. */
  public boolean isEmptyString(int node) {
    return kind[node] == STRING && end[node] - start[node] == 2;
  }

  /** The node's JSON text, as it appears in the document. */
  public String json(int node) {
    return text.substring(start[node], end[node]);
  }

  /**
   * The value of an integer node that fits in a {@code long}, or {@code fallback} for anything
   * else (decimals, out-of-range integers, other kinds).
   */
  public long longValue(int node, long fallback) {
    if (kind[node] != NUMBER) {
      return fallback;
    }
    int s = start[node];
    int e = end[node];
    int digits = e - s - (text.charAt(s) == '-' ? 1 : 0);
    if (digits > 18) {
      return fallback;
    }
    for (int i = s; i < e; i++) {
      if (text.charAt(i) == '.') {
        return fallback;
      }
    }
    return Long.parseLong(text, s, e, 10);
  }

  // ------------------------------------------------------------------ parsing

  /** Parses one value at {@code pos}; returns its node, or NONE when the text is refused. */
  private int value(int depth) {
    if (pos >= length) {
      return NONE;
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return depth >= MAX_DEPTH ? NONE : object(depth);
      case '[':
        return depth >= MAX_DEPTH ? NONE : array(depth);
      case '"': {
        int node = node(STRING);
        return scanString(node) ? node : NONE;
      }
      case 't':
        return literal("true", TRUE);
      case 'f':
        return literal("false", FALSE);
      case 'n':
        return literal("null", NULL);
      default:
        return c == '-' || (c >= '0' && c <= '9') ? number() : NONE;
    }
  }

  private int object(int depth) {
    int node = node(OBJECT);
    pos++;
    if (pos < length && text.charAt(pos) == '}') {
      end[node] = ++pos;
      return node;
    }
    int last = NONE;
    int members = 0;
    while (true) {
      if (pos >= length || text.charAt(pos) != '"' || ++members > MAX_MEMBERS) {
        return NONE;
      }
      int ks = pos;
      if (!key()) {
        return NONE;
      }
      int ke = pos;
      if (pos >= length || text.charAt(pos) != ':') {
        return NONE;
      }
      pos++;
      if (isDuplicate(node, ks, ke)) {
        return NONE;
      }
      int child = value(depth + 1);
      if (child == NONE) {
        return NONE;
      }
      keyStart[child] = ks;
      keyEnd[child] = ke;
      last = append(node, last, child);
      int after = afterMember(node, '}');
      if (after != MORE) {
        return after;
      }
    }
  }

  private int array(int depth) {
    int node = node(ARRAY);
    pos++;
    if (pos < length && text.charAt(pos) == ']') {
      end[node] = ++pos;
      return node;
    }
    int last = NONE;
    while (true) {
      int child = value(depth + 1);
      if (child == NONE) {
        return NONE;
      }
      last = append(node, last, child);
      int after = afterMember(node, ']');
      if (after != MORE) {
        return after;
      }
    }
  }

  /** Links {@code child} after {@code last} under {@code parent}; returns it as the new last. */
  private int append(int parent, int last, int child) {
    if (last == NONE) {
      first[parent] = child;
    } else {
      next[last] = child;
    }
    return child;
  }

  /**
   * Reads what follows a member of container {@code node}: its {@code closer} ends it (returns
   * {@code node}), a comma means another member follows ({@link #MORE}), anything else is not
   * compact JSON ({@link #NONE}).
   */
  private int afterMember(int node, char closer) {
    if (pos >= length) {
      return NONE;
    }
    char c = text.charAt(pos++);
    if (c == closer) {
      end[node] = pos;
      return node;
    }
    return c == ',' ? MORE : NONE;
  }

  private boolean isDuplicate(int object, int ks, int ke) {
    int len = ke - ks;
    for (int n = first[object]; n != NONE; n = next[n]) {
      if (keyEnd[n] - keyStart[n] == len && text.regionMatches(keyStart[n], text, ks, len)) {
        return true;
      }
    }
    return false;
  }

  /** A key: a string without escapes (escaped keys are rare and left to Jackson). */
  private boolean key() {
    int i = pos + 1;
    while (i < length) {
      char c = text.charAt(i);
      if (c == '"') {
        pos = i + 1;
        return true;
      }
      if (c == '\\' || c < 0x20 || Character.isSurrogate(c)) {
        return false;
      }
      i++;
    }
    return false;
  }

  /** A string value at {@code pos}, allowing only the escapes Jackson itself writes. */
  private boolean scanString(int node) {
    int i = pos + 1;
    boolean sawEscape = false;
    while (i < length) {
      char c = text.charAt(i);
      if (c == '"') {
        pos = i + 1;
        end[node] = pos;
        escaped[node] = sawEscape;
        return true;
      }
      if (c < 0x20) {
        return false; // raw control characters are not JSON
      }
      if (c == '\\') {
        sawEscape = true;
        if (i + 1 >= length) {
          return false;
        }
        char e = text.charAt(i + 1);
        if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
          i += 2;
          continue;
        }
        if (e != 'u' || !isCanonicalUnicodeEscape(i + 2)) {
          return false;
        }
        i += 6;
        continue;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= length || !Character.isLowSurrogate(text.charAt(i + 1))) {
          return false;
        }
        surrogates = true;
        i += 2;
        continue;
      }
      if (Character.isLowSurrogate(c)) {
        return false;
      }
      i++;
    }
    return false;
  }

  /**
   * Jackson writes {@code \}{@code uXXXX} only for control characters without a short escape,
   * in upper-case hex; any other spelling would be rewritten by a round trip.
   */
  private boolean isCanonicalUnicodeEscape(int at) {
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

  private int literal(String word, int type) {
    if (!text.startsWith(word, pos)) {
      return NONE;
    }
    int node = node(type);
    pos += word.length();
    end[node] = pos;
    return node;
  }

  /**
   * A number Jackson would print back unchanged. Integers are printed as written, except
   * {@code -0}. Decimals are read as {@link java.math.BigDecimal} and printed by its {@code
   * toString}: plainly when the scale is not negative and the adjusted exponent is at least -6,
   * otherwise as {@code d.dddE±n}; and never with the sign of a negative zero.
   */
  private int number() {
    int s = pos;
    int i = pos;
    boolean negative = text.charAt(i) == '-';
    if (negative) {
      i++;
    }
    if (i >= length) {
      return NONE;
    }
    char c = text.charAt(i);
    boolean zeroInteger = c == '0';
    int fracLength = 0;
    if (zeroInteger) {
      i++;
      if (i < length && isDigit(text.charAt(i))) {
        return NONE;
      }
    } else if (c >= '1' && c <= '9') {
      while (i < length && isDigit(text.charAt(i))) {
        i++;
      }
    } else {
      return NONE;
    }
    if (i < length && text.charAt(i) == '.') {
      i++;
      int fracStart = i;
      while (i < length && isDigit(text.charAt(i))) {
        i++;
      }
      fracLength = i - fracStart;
      if (fracLength == 0) {
        return NONE;
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
          return NONE;
        }
      }
    } else if (negative && zeroInteger && !(i < length && isExponentMark(text.charAt(i)))) {
      return NONE;
    }
    if (i < length && isExponentMark(text.charAt(i))) {
      i = exponent(s, i, negative, zeroInteger, fracLength);
      if (i < 0) {
        return NONE;
      }
    }
    if (i - s > MAX_NUMBER_CHARS) {
      return NONE;
    }
    int node = node(NUMBER);
    pos = i;
    end[node] = i;
    return node;
  }

  /**
   * The exponent of a number at {@code at} (the {@code E}); returns the index after it, or -1 when
   * BigDecimal would not print this spelling: it writes {@code E}, always a sign, no leading zeros,
   * and uses the form only when the scale is negative or the adjusted exponent is below -6.
   */
  private int exponent(int numberStart, int at, boolean negative, boolean zeroMantissa, int fracLength) {
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

  private int node(int type) {
    if (count == kind.length) {
      grow();
    }
    int n = count++;
    kind[n] = type;
    start[n] = pos;
    end[n] = pos;
    keyStart[n] = NONE;
    keyEnd[n] = NONE;
    next[n] = NONE;
    first[n] = NONE;
    escaped[n] = false;
    return n;
  }

  private void grow() {
    int size = kind.length * 2;
    kind = Arrays.copyOf(kind, size);
    start = Arrays.copyOf(start, size);
    end = Arrays.copyOf(end, size);
    keyStart = Arrays.copyOf(keyStart, size);
    keyEnd = Arrays.copyOf(keyEnd, size);
    next = Arrays.copyOf(next, size);
    first = Arrays.copyOf(first, size);
    escaped = Arrays.copyOf(escaped, size);
  }

  private void allocate(int size) {
    kind = new int[size];
    start = new int[size];
    end = new int[size];
    keyStart = new int[size];
    keyEnd = new int[size];
    next = new int[size];
    first = new int[size];
    escaped = new boolean[size];
  }
}
