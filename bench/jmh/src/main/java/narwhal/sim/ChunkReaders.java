package narwhal.sim;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.util.Objects;
import narwhal.openai.CompactJson;
import org.jspecify.annotations.Nullable;

/**
 * The two chunk readers {@link ChunkReadBenchmark} compares: {@link #readCompact} as {@code
 * OpenAiStreamDecoder}'s indexed path reads a chunk, {@link #readStreaming} the same fields with
 * Jackson's streaming parser.
 */
final class ChunkReaders {

  private ChunkReaders() {}

  /** The fields the router's decoder reads from one chunk. */
  static final class Fields {
    boolean error;
    boolean hasChoice;
    long index;
    @Nullable String finish;
    String stopJson = "";
    String text = "";
    String role = "";
    boolean generated;
    long prompt;
    long completion;
    long total;

    void reset() {
      error = false;
      hasChoice = false;
      index = 0;
      finish = null;
      stopJson = "";
      text = "";
      role = "";
      generated = false;
      prompt = 0;
      completion = 0;
      total = 0;
    }

    long checksum() {
      return index + text.length() + role.length() + stopJson.length() + (finish == null ? 0 : finish.length())
          + (generated ? 1 : 0) + (error ? 2 : 0) + (hasChoice ? 4 : 0) + prompt + completion + total;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Fields f && error == f.error && hasChoice == f.hasChoice && index == f.index
          && Objects.equals(finish, f.finish) && stopJson.equals(f.stopJson) && text.equals(f.text)
          && role.equals(f.role) && generated == f.generated && prompt == f.prompt
          && completion == f.completion && total == f.total;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(checksum());
    }

    @Override
    public String toString() {
      return "Fields[error=" + error + ", choice=" + hasChoice + ", index=" + index + ", finish=" + finish
          + ", stop=" + stopJson + ", text=" + text + ", role=" + role + ", generated=" + generated
          + ", usage=" + prompt + "/" + completion + "/" + total + "]";
    }
  }

  // ------------------------------------------------------------------ CompactJson: as OpenAiStreamDecoder.decodeIndexed

  static boolean readCompact(CompactJson ix, String chunk, boolean chat, Fields out) {
    out.reset();
    if (!ix.index(chunk)) {
      return false;
    }
    int root = ix.root();
    int error = ix.member(root, "error");
    out.error = error != CompactJson.NONE && ix.kind(error) != CompactJson.NULL;
    int usage = ix.member(root, "usage");
    if (usage != CompactJson.NONE && ix.kind(usage) == CompactJson.OBJECT) {
      out.prompt = count(ix, ix.member(usage, "prompt_tokens"));
      out.completion = count(ix, ix.member(usage, "completion_tokens"));
      out.total = count(ix, ix.member(usage, "total_tokens"));
    }
    int choices = ix.member(root, "choices");
    int choice = choices == CompactJson.NONE ? CompactJson.NONE : ix.first(choices);
    if (choice == CompactJson.NONE || ix.kind(choice) != CompactJson.OBJECT) {
      return true;
    }
    out.hasChoice = true;
    int indexNode = ix.member(choice, "index");
    out.index = indexNode == CompactJson.NONE ? 0 : ix.longValue(indexNode, Long.MIN_VALUE);
    int finish = ix.member(choice, "finish_reason");
    if (finish != CompactJson.NONE && ix.kind(finish) == CompactJson.STRING) {
      out.finish = ix.string(finish);
    }
    int stop = ix.member(choice, "stop_reason");
    out.stopJson = stop != CompactJson.NONE && ix.kind(stop) != CompactJson.NULL ? ix.json(stop) : "";
    if (chat) {
      int delta = ix.member(choice, "delta");
      out.text = string(ix, ix.member(delta, "content"));
      out.role = string(ix, ix.member(delta, "role"));
      out.generated = !out.text.isEmpty()
          || nonEmptyString(ix, ix.member(delta, "reasoning_content"))
          || nonEmptyString(ix, ix.member(delta, "reasoning"))
          || nonEmptyArray(ix, ix.member(delta, "tool_calls"))
          || nonEmptyArray(ix, ix.member(choice, "token_ids"));
    } else {
      out.text = string(ix, ix.member(choice, "text"));
      out.generated = !out.text.isEmpty() || nonEmptyArray(ix, ix.member(choice, "token_ids"));
    }
    return true;
  }

  private static long count(CompactJson ix, int node) {
    return node == CompactJson.NONE ? 0 : ix.longValue(node, -1);
  }

  private static String string(CompactJson ix, int node) {
    return node != CompactJson.NONE && ix.kind(node) == CompactJson.STRING ? ix.string(node) : "";
  }

  private static boolean nonEmptyString(CompactJson ix, int node) {
    return node != CompactJson.NONE && ix.kind(node) == CompactJson.STRING && !ix.isEmptyString(node);
  }

  private static boolean nonEmptyArray(CompactJson ix, int node) {
    return node != CompactJson.NONE && ix.kind(node) == CompactJson.ARRAY && ix.first(node) != CompactJson.NONE;
  }

  // ------------------------------------------------------------------ Jackson streaming: the same fields

  static void readStreaming(JsonFactory factory, String chunk, boolean chat, Fields out) throws IOException {
    out.reset();
    try (JsonParser p = factory.createParser(chunk)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("not an object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "error" -> {
            out.error = value != JsonToken.VALUE_NULL;
            p.skipChildren();
          }
          case "choices" -> readChoices(p, value, chat, out);
          case "usage" -> readUsage(p, value, out);
          default -> p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw new IOException("trailing content");
      }
    }
  }

  private static void readChoices(JsonParser p, JsonToken value, boolean chat, Fields out) throws IOException {
    if (value != JsonToken.START_ARRAY) {
      p.skipChildren();
      return;
    }
    JsonToken element = p.nextToken();
    if (element == JsonToken.START_OBJECT) {
      out.hasChoice = true;
      readChoice(p, chat, out);
      element = p.nextToken();
    }
    while (element != JsonToken.END_ARRAY) {
      p.skipChildren();
      element = p.nextToken();
    }
  }

  private static void readChoice(JsonParser p, boolean chat, Fields out) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "index" -> out.index = value == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : Long.MIN_VALUE;
        case "finish_reason" -> out.finish = value == JsonToken.VALUE_STRING ? p.getText() : null;
        case "stop_reason" -> out.stopJson = jsonText(p, value);
        case "text" -> {
          if (!chat) {
            out.text = value == JsonToken.VALUE_STRING ? p.getText() : "";
            out.generated |= !out.text.isEmpty();
          }
          p.skipChildren();
        }
        case "delta" -> {
          if (chat && value == JsonToken.START_OBJECT) {
            readDelta(p, out);
          } else {
            p.skipChildren();
          }
        }
        case "token_ids" -> out.generated |= nonEmptyArray(p, value);
        default -> p.skipChildren();
      }
    }
  }

  private static void readDelta(JsonParser p, Fields out) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "content" -> {
          out.text = value == JsonToken.VALUE_STRING ? p.getText() : "";
          out.generated |= !out.text.isEmpty();
        }
        case "role" -> out.role = value == JsonToken.VALUE_STRING ? p.getText() : "";
        case "reasoning_content", "reasoning" ->
            out.generated |= value == JsonToken.VALUE_STRING && p.getTextLength() > 0;
        case "tool_calls" -> out.generated |= nonEmptyArray(p, value);
        default -> p.skipChildren();
      }
    }
  }

  private static void readUsage(JsonParser p, JsonToken value, Fields out) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      long n = v == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : -1;
      switch (name) {
        case "prompt_tokens" -> out.prompt = n;
        case "completion_tokens" -> out.completion = n;
        case "total_tokens" -> out.total = n;
        default -> p.skipChildren();
      }
    }
  }

  /** True for a non-empty array; leaves the parser after the value. */
  private static boolean nonEmptyArray(JsonParser p, JsonToken value) throws IOException {
    if (value != JsonToken.START_ARRAY) {
      p.skipChildren();
      return false;
    }
    boolean nonEmpty = p.nextToken() != JsonToken.END_ARRAY;
    if (nonEmpty) {
      p.skipChildren();
      while (p.nextToken() != JsonToken.END_ARRAY) {
        p.skipChildren();
      }
    }
    return nonEmpty;
  }

  /** A scalar's JSON text as the chunk spells it ("" for null); stop_reason is a string or an int. */
  private static String jsonText(JsonParser p, JsonToken value) throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return "";
    }
    if (value == JsonToken.VALUE_STRING) {
      return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(p.getText())) + "\"";
    }
    if (value.isScalarValue()) {
      return p.getText();
    }
    p.skipChildren();
    return "{}";
  }
}
