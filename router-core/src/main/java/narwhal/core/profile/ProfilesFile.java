package narwhal.core.profile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes the profiles file ({@code profiles.path}, default {@code runs/profiles.json}).
 *
 * <pre>{@code
 * {"schema": "narwhal.profiles", "schema_version": 1,
 *  "engines": [{"iid": "p0", "url": "http://10.0.0.5:8000", "process_generation": "7",
 *               "measured_at": "2026-12-01T21:22:22Z",
 *               "prefill": {"base_s": 0.012, "per_token_s": 8e-05, "per_token_sq_s": 3e-09,
 *                           "min_tokens": 32, "max_tokens": 16384, "samples": 10},
 *               "decode": {"base_s": 0.007, "per_resident_token_s": 2e-07, "per_seq_s": 0.00015,
 *                          "max_resident_tokens": 67584, "max_seqs": 32, "samples": 12,
 *                          "fit_mape": 0.012, "cv_mape": 0.02}}]}
 * }</pre>
 *
 * <p>Reading checks everything and reports every problem in one pass, each with its JSON path (a
 * duplicate key or malformed JSON stops at that point and is reported alone); keys starting with
 * {@code _} are comments, any other unknown key is an error. Writing goes to a temporary file in
 * the same directory, then moves it over the old one, so a reader (a router starting) never sees
 * half a file. Stateless and thread-safe.
 */
public final class ProfilesFile {

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .enable(SerializationFeature.INDENT_OUTPUT)
      .build();

  private static final String ROOT = "$";

  private ProfilesFile() {}

  /**
   * The document at {@code file}, or null when there is no such file (a fleet not profiled yet).
   *
   * @throws ProfilesFileException when the file exists but cannot be read or is invalid; the
   *     message names the file
   */
  public static @Nullable ProfilesDocument readIfExists(Path file) throws ProfilesFileException {
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new ProfilesFileException("cannot read profiles file " + file, List.of(ROOT + ": " + e));
    }
    try {
      return parse(json);
    } catch (ProfilesFileException e) {
      throw new ProfilesFileException("invalid profiles file " + file, e.errors());
    }
  }

  /** The document at {@code file}; a missing file is an error here. */
  public static ProfilesDocument read(Path file) throws ProfilesFileException {
    ProfilesDocument doc = readIfExists(file);
    if (doc == null) {
      throw new ProfilesFileException("cannot read profiles file " + file,
          List.of(ROOT + ": no such file (narwhal profile --fleet FILE writes it)"));
    }
    return doc;
  }

  /** Parses a profiles file's text. */
  public static ProfilesDocument parse(String json) throws ProfilesFileException {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      String where = e.getLocation() == null ? ""
          : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
      String detail = e.getOriginalMessage();
      throw new ProfilesFileException("invalid profiles file", List.of(ROOT + ": "
          + (detail.startsWith("Duplicate field") ? "duplicate key" + where + ": " + detail
              : "invalid JSON" + where + ": " + detail)));
    }
    if (root == null || root.isMissingNode()) {
      throw new ProfilesFileException("invalid profiles file", List.of(ROOT + ": empty document"));
    }
    if (!root.isObject()) {
      throw new ProfilesFileException("invalid profiles file",
          List.of(ROOT + ": must be a JSON object, got " + ProfileFields.show(root)));
    }
    List<String> problems = new ArrayList<>();
    ProfileFields top = new ProfileFields((ObjectNode) root, ROOT, problems);
    checkSchema(top);
    List<ProfileRow> rows = rows(top);
    top.finish();
    if (!problems.isEmpty()) {
      throw new ProfilesFileException("invalid profiles file", problems);
    }
    return new ProfilesDocument(rows);
  }

  /**
   * Writes {@code doc} to {@code file} atomically: a temporary file in the same directory, then a
   * move over the old file (created with its directories when missing).
   */
  public static void write(Path file, ProfilesDocument doc) throws IOException {
    Path absolute = file.toAbsolutePath();
    Path dir = absolute.getParent();
    Files.createDirectories(dir);
    Path temp = Files.createTempFile(dir, "." + absolute.getFileName() + ".", ".tmp");
    try {
      Files.writeString(temp, toJson(doc), StandardCharsets.UTF_8);
      try {
        Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp); // only still there when the move failed
    }
  }

  /** The document as the file's text. */
  public static String toJson(ProfilesDocument doc) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("schema", ProfilesDocument.SCHEMA);
    root.put("schema_version", ProfilesDocument.SCHEMA_VERSION);
    ArrayNode engines = root.putArray("engines");
    for (ProfileRow r : doc.rows()) {
      ObjectNode e = engines.addObject();
      e.put("iid", r.iid());
      e.put("url", r.url());
      e.put("process_generation", r.generation());
      e.put("measured_at", r.measuredAt().toString());
      ObjectNode p = e.putObject("prefill");
      p.put("base_s", r.prefill().baseS());
      p.put("per_token_s", r.prefill().perTokenS());
      p.put("per_token_sq_s", r.prefill().perTokenSquaredS());
      p.put("min_tokens", r.prefill().minTokens());
      p.put("max_tokens", r.prefill().maxTokens());
      p.put("samples", r.prefillSamples());
      ObjectNode d = e.putObject("decode");
      d.put("base_s", r.decode().baseS());
      d.put("per_resident_token_s", r.decode().perResidentTokenS());
      d.put("per_seq_s", r.decode().perSequenceS());
      d.put("max_resident_tokens", r.decode().maxResidentTokens());
      d.put("max_seqs", r.decode().maxSequences());
      d.put("samples", r.decodeSamples());
      d.put("fit_mape", r.decodeFitMape());
      d.put("cv_mape", r.decodeCvMape());
    }
    try {
      return MAPPER.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a profiles document always renders", e);
    }
  }

  private static void checkSchema(ProfileFields top) {
    JsonNode schema = top.raw("schema");
    if (schema == null) {
      top.error("schema", "required: \"" + ProfilesDocument.SCHEMA + "\"");
    } else if (!schema.isTextual() || !schema.textValue().equals(ProfilesDocument.SCHEMA)) {
      top.error("schema", "must be \"" + ProfilesDocument.SCHEMA + "\", got " + ProfileFields.show(schema));
    }
    JsonNode version = top.raw("schema_version");
    if (version == null) {
      top.error("schema_version", "required: " + ProfilesDocument.SCHEMA_VERSION);
    } else if (!version.isIntegralNumber() || version.longValue() != ProfilesDocument.SCHEMA_VERSION) {
      top.error("schema_version", "must be " + ProfilesDocument.SCHEMA_VERSION + ", got " + ProfileFields.show(version));
    }
  }

  private static List<ProfileRow> rows(ProfileFields top) {
    List<ProfileRow> rows = new ArrayList<>();
    JsonNode engines = top.raw("engines");
    if (engines == null) {
      top.error("engines", "required: an array of engine rows");
      return rows;
    }
    if (!engines.isArray()) {
      top.error("engines", "must be an array of engine rows, got " + ProfileFields.show(engines));
      return rows;
    }
    String enginesPath = ProfileFields.child(top.path(), "engines");
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < engines.size(); i++) {
      String path = ProfileFields.index(enginesPath, i);
      JsonNode e = engines.get(i);
      if (!e.isObject()) {
        top.problems().add(path + ": must be an object, got " + ProfileFields.show(e));
        continue;
      }
      ProfileRow row = row(new ProfileFields((ObjectNode) e, path, top.problems()));
      if (row != null && !seen.add(row.iid())) {
        top.problems().add(ProfileFields.child(path, "iid") + ": duplicate iid \"" + row.iid()
            + "\": the file holds one row per engine");
      } else if (row != null) {
        rows.add(row);
      }
    }
    return rows;
  }

  private static @Nullable ProfileRow row(ProfileFields f) {
    String iid = f.requiredString("iid");
    String url = f.requiredString("url");
    boolean[] generationOk = new boolean[1];
    String generation = f.generation("process_generation", generationOk);
    Instant measuredAt = f.utcInstant("measured_at");
    ProfileFields p = f.object("prefill");
    PrefillModel prefill = null;
    Long prefillSamples = null;
    if (p != null) {
      Double base = p.nonNegative("base_s");
      Double perToken = p.nonNegative("per_token_s");
      Double perTokenSq = p.nonNegative("per_token_sq_s");
      Long min = p.integer("min_tokens", 1, Long.MAX_VALUE);
      Long max = p.integer("max_tokens", 1, Long.MAX_VALUE);
      prefillSamples = p.integer("samples", 1, Integer.MAX_VALUE);
      if (min != null && max != null && max < min) {
        p.error("max_tokens", "must be >= min_tokens (" + min + "), got " + max);
      } else if (base != null && perToken != null && perTokenSq != null && min != null && max != null) {
        prefill = new PrefillModel(base, perToken, perTokenSq, min, max);
      }
      p.finish();
    }
    ProfileFields d = f.object("decode");
    DecodeModel decode = null;
    Long decodeSamples = null;
    Double fitMape = null;
    Double cvMape = null;
    if (d != null) {
      Double base = d.nonNegative("base_s");
      Double perToken = d.nonNegative("per_resident_token_s");
      Double perSeq = d.nonNegative("per_seq_s");
      Long maxResident = d.integer("max_resident_tokens", 0, Long.MAX_VALUE);
      Long maxSeqs = d.integer("max_seqs", 1, Integer.MAX_VALUE);
      decodeSamples = d.integer("samples", 1, Integer.MAX_VALUE);
      fitMape = d.nonNegative("fit_mape");
      cvMape = d.nonNegative("cv_mape");
      if (base != null && perToken != null && perSeq != null && maxResident != null && maxSeqs != null) {
        decode = new DecodeModel(base, perToken, perSeq, maxResident, maxSeqs.intValue());
      }
      d.finish();
    }
    f.finish();
    if (iid == null || url == null || !generationOk[0] || measuredAt == null || prefill == null
        || prefillSamples == null || decode == null || decodeSamples == null || fitMape == null || cvMape == null) {
      return null;
    }
    return new ProfileRow(iid, url, generation, measuredAt, prefill, prefillSamples.intValue(), decode,
        decodeSamples.intValue(), fitMape, cvMape);
  }
}
