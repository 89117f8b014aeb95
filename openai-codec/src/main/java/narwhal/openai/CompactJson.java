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
 * <p>What the canonical spellings of keys, strings and numbers are lives in {@link
 * CanonicalSpelling}; this class builds and reads the node table.
 *
 * <p>Why not Jackson's streaming {@code JsonParser}: it cannot tell canonical text, and it is 19–46 %
 * slower per token with 15–30 times the allocation ({@code narwhal.sim.ChunkReadBenchmark}, figures
 * in BENCHMARKS.md), beyond the 10 % that would have made one JSON path worth it.
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
      resize(32, false);
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
    return CanonicalSpelling.unescape(text, from, to);
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
   * else (decimals, exponent spellings, out-of-range integers, other kinds).
   */
  public long longValue(int node, long fallback) {
    if (kind[node] != NUMBER) {
      return fallback;
    }
    return CanonicalSpelling.longValue(text, start[node], end[node], fallback);
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
      int ke = CanonicalSpelling.keyEnd(text, pos, length);
      if (ke < 0) {
        return NONE;
      }
      pos = ke;
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

  /** A string value at {@code pos}, allowing only the escapes Jackson itself writes. */
  private boolean scanString(int node) {
    long scanned = CanonicalSpelling.string(text, pos, length);
    if (scanned < 0) {
      return false;
    }
    pos = (int) (scanned >>> 2);
    end[node] = pos;
    escaped[node] = (scanned & CanonicalSpelling.ESCAPED) != 0;
    surrogates |= (scanned & CanonicalSpelling.SURROGATES) != 0;
    return true;
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

  /** A number Jackson would print back unchanged (see {@link CanonicalSpelling#numberEnd}). */
  private int number() {
    int e = CanonicalSpelling.numberEnd(text, pos, length);
    if (e < 0) {
      return NONE;
    }
    int node = node(NUMBER);
    pos = e;
    end[node] = e;
    return node;
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
    resize(kind.length * 2, true);
  }

  /** Resizes every per-node array, keeping the nodes ({@code keep}) or starting empty. */
  private void resize(int size, boolean keep) {
    kind = keep ? Arrays.copyOf(kind, size) : new int[size];
    start = keep ? Arrays.copyOf(start, size) : new int[size];
    end = keep ? Arrays.copyOf(end, size) : new int[size];
    keyStart = keep ? Arrays.copyOf(keyStart, size) : new int[size];
    keyEnd = keep ? Arrays.copyOf(keyEnd, size) : new int[size];
    next = keep ? Arrays.copyOf(next, size) : new int[size];
    first = keep ? Arrays.copyOf(first, size) : new int[size];
    escaped = keep ? Arrays.copyOf(escaped, size) : new boolean[size];
  }
}
