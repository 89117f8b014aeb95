package narwhal.it;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of hostile request bodies for the completion routes: wrong JSON types for
 * every field, invalid UTF-8 and lone surrogates, deep nesting, huge strings and arrays (within and
 * beyond {@code max_request_bytes}), duplicate keys, odd number spellings, and non-objects.
 */
final class HostileBodies {

  static final List<String> FIELDS = List.of("model", "prompt", "messages", "max_tokens", "max_completion_tokens",
      "stream", "n", "best_of", "temperature", "top_p", "top_k", "min_p", "seed", "min_tokens", "stop",
      "stream_options", "presence_penalty", "frequency_penalty", "logprobs", "echo", "user", "tools",
      "response_format", "kv_transfer_params", "vllm_xargs", "modalities", "audio", "request_id");
  static final List<String> VALUES = List.of("true", "false", "null", "0", "-1", "2.5", "-0", "1E+5", "1e309",
      "-1e309", "1.0", "99999999999999999999999", "\"s\"", "\"\"", "[]", "{}", "[1,\"a\",null]", "{\"a\":{}}",
      "[[[]]]", "\"\\ud800\"", "\"\\udc00\\ud800\"", "\"\\u0000\"");

  private final Random random;
  private final int maxRequestBytes;

  HostileBodies(long seed, int maxRequestBytes) {
    this.random = new Random(seed);
    this.maxRequestBytes = maxRequestBytes;
  }

  /** One hostile body (bytes, since some are not UTF-8) and a label saying what it is. */
  record Body(String label, byte[] bytes, boolean chat) {}

  Body next() {
    boolean chat = random.nextBoolean();
    String base = chat
        ? "\"model\":\"narwhal-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":2"
        : "\"model\":\"narwhal-sim\",\"prompt\":\"hi\",\"max_tokens\":2";
    switch (random.nextInt(10)) {
      case 0, 1, 2 -> {
        String field = FIELDS.get(random.nextInt(FIELDS.size()));
        String value = VALUES.get(random.nextInt(VALUES.size()));
        // Replacing a base field by appending it would be a duplicate key: write the base without it.
        String b = base.replaceAll("\"" + field + "\":(\"[^\"]*\"|\\[[^\\]]*\\]|[0-9]+),?", "").replaceAll(",$", "");
        return text(field + "=" + value, "{" + b + (b.isEmpty() ? "" : ",") + "\"" + field + "\":" + value + "}", chat);
      }
      case 3 -> {
        byte[][] bad = {{(byte) 0xC3, 0x28}, {(byte) 0xFF}, {(byte) 0xC0, (byte) 0xAF},
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xE2}};
        byte[] b = bad[random.nextInt(bad.length)];
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("{\"model\":\"narwhal-sim\",\"prompt\":\"x").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(b);
        out.writeBytes("y\",\"max_tokens\":2}".getBytes(StandardCharsets.UTF_8));
        return new Body("invalid UTF-8 " + hex(b), out.toByteArray(), false);
      }
      case 4 -> {
        int depth = random.nextBoolean() ? 10_000 : 1 + random.nextInt(2000);
        String open = random.nextBoolean() ? "[" : "{\"a\":";
        String close = open.equals("[") ? "]" : "}";
        return text("nesting " + depth + " " + open, "{" + base + ",\"x\":" + open.repeat(depth) + "1"
            + close.repeat(depth) + "}", chat);
      }
      case 5 -> {
        boolean beyond = random.nextBoolean();
        int size = beyond ? maxRequestBytes + 1 + random.nextInt(maxRequestBytes) : maxRequestBytes / 2;
        return random.nextBoolean()
            ? text("huge string " + size, "{\"model\":\"narwhal-sim\",\"prompt\":\"" + "a ".repeat(size / 2)
                + "\",\"max_tokens\":1}", false)
            : text("huge array " + size, "{\"model\":\"narwhal-sim\",\"prompt\":[" + "7,".repeat(size / 2)
                + "7],\"max_tokens\":1}", false);
      }
      case 6 -> {
        return text("duplicate key", "{" + base + ",\"max_tokens\":3}", chat);
      }
      case 7 -> {
        String n = List.of("1e309", "-0", "1E+5", "1e2", "2.0", "-1e-400", "0x10", "01", "+1", "NaN", "Infinity")
            .get(random.nextInt(11));
        String field = List.of("max_tokens", "temperature", "top_p", "seed", "n").get(random.nextInt(5));
        return text("number " + field + "=" + n, "{\"model\":\"narwhal-sim\",\"prompt\":\"hi\",\"" + field + "\":"
            + n + (field.equals("max_tokens") ? "" : ",\"max_tokens\":2") + "}", false);
      }
      case 8 -> {
        String s = List.of("", "[]", "\"s\"", "1", "null", "{", "{\"model\":", "{}}", "{} {}", "{\"a\":1,}",
            "{'model':'x'}", "\uFEFF{}", "{\"prompt\":\"hi\"").get(random.nextInt(13));
        return text("not an object: " + s, s, chat);
      }
      default -> {
        String messages = List.of("[]", "[1]", "[{}]", "[{\"role\":1}]", "[{\"role\":\"user\",\"content\":{}}]",
            "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":7}]}]", "{\"role\":\"user\"}",
            "[{\"role\":\"user\",\"content\":\"" + "\\".repeat(2) + "\\ud83d\"}]").get(random.nextInt(8));
        return text("messages=" + messages, "{\"model\":\"narwhal-sim\",\"messages\":" + messages
            + ",\"max_tokens\":2}", true);
      }
    }
  }

  private static Body text(String label, String json, boolean chat) {
    String shown = label.length() > 80 ? label.substring(0, 80) + "..." : label;
    return new Body(shown, json.getBytes(StandardCharsets.UTF_8), chat);
  }

  private static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(String.format("%02X", x));
    }
    return sb.toString();
  }
}
