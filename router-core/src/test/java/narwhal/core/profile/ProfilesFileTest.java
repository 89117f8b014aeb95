package narwhal.core.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The profiles file: a round trip, the atomic write, and hostile files reported in one pass. */
class ProfilesFileTest {

  @TempDir
  Path dir;

  static ProfileRow row(String iid, String generation) {
    return new ProfileRow(iid, "http://127.0.0.1:8000", generation, Instant.parse("2026-12-01T21:22:22.125Z"),
        new PrefillModel(0.012, 8e-5, 3e-9, 32, 16384), 10,
        new DecodeModel(0.007, 2e-7, 1.5e-4, 67584, 32), 12, 0.0123, 0.0234);
  }

  @Test
  void roundTrip_keepsEveryField() throws Exception {
    ProfilesDocument doc = new ProfilesDocument(List.of(row("p0", "7"), row("d0", null)));
    Path file = dir.resolve("runs/profiles.json");

    ProfilesFile.write(file, doc);
    ProfilesDocument back = ProfilesFile.read(file);

    assertThat(back).isEqualTo(doc);
    assertThat(Files.readString(file)).contains("\"schema\" : \"narwhal.profiles\"", "\"process_generation\" : null",
        "\"measured_at\" : \"2026-12-01T21:22:22.125Z\"");
    try (Stream<Path> left = Files.list(file.getParent())) {
      assertThat(left).as("no temporary file is left behind").containsExactly(file);
    }
  }

  @Test
  void write_replacesTheOldFileWhole() throws Exception {
    Path file = dir.resolve("profiles.json");
    ProfilesFile.write(file, new ProfilesDocument(List.of(row("p0", "1"), row("p1", "1"))));

    ProfilesFile.write(file, new ProfilesDocument(List.of(row("p0", "2"))));

    assertThat(ProfilesFile.read(file).rows()).extracting(ProfileRow::generation).containsExactly("2");
  }

  @Test
  void anIntegerGeneration_isReadAsItsDecimalText_andCommentsAreIgnored() throws Exception {
    String json = ProfilesFile.toJson(new ProfilesDocument(List.of(row("p0", "7"))))
        .replace("\"process_generation\" : \"7\"", "\"process_generation\" : 7, \"_note\" : \"bench box\"");

    assertThat(ProfilesFile.parse(json).row("p0").generation()).isEqualTo("7");
  }

  @Test
  void aMissingFile_isNoDocument_forReadIfExists_andAnErrorForRead() throws Exception {
    Path missing = dir.resolve("none.json");

    assertThat(ProfilesFile.readIfExists(missing)).isNull();
    assertThatThrownBy(() -> ProfilesFile.read(missing)).isInstanceOf(ProfilesFileException.class)
        .hasMessageContaining("no such file (narwhal profile --fleet FILE writes it)");
  }

  @Test
  void hostileFile_everyProblemReportedInOnePass_withItsJsonPath() {
    String json = """
        {"schema": "narwhal.fleet", "schema_version": 2, "extra": 1,
         "engines": [
          {"iid": "p0", "url": "http://a", "process_generation": true, "measured_at": "2026-12-01T21:22:22+01:00",
           "prefill": {"base_s": -1, "per_token_s": "fast", "per_token_sq_s": 0, "min_tokens": 64,
                       "max_tokens": 32, "samples": 2.5},
           "decode": {"base_s": 0.01, "per_resident_token_s": 0, "per_seq_s": 0, "max_resident_tokens": 10,
                      "max_seqs": 0, "samples": 3, "fit_mape": 1e400, "cv_mape": null, "cv": 1}},
          {"iid": "", "url": 5, "measured_at": "2026-12-01T21:22:22Z"},
          7,
          {"iid": "p0", "url": "http://b", "process_generation": null, "measured_at": "2026-12-01T21:22:22Z",
           "prefill": {"base_s": 0, "per_token_s": 0, "per_token_sq_s": 0, "min_tokens": 1, "max_tokens": 1,
                       "samples": 1},
           "decode": {"base_s": 0, "per_resident_token_s": 0, "per_seq_s": 0, "max_resident_tokens": 0,
                      "max_seqs": 1, "samples": 1, "fit_mape": 0, "cv_mape": 0}},
          {"iid": "p0", "url": "http://b", "process_generation": null, "measured_at": "2026-12-01T21:22:22Z",
           "prefill": {"base_s": 0, "per_token_s": 0, "per_token_sq_s": 0, "min_tokens": 1, "max_tokens": 1,
                       "samples": 1},
           "decode": {"base_s": 0, "per_resident_token_s": 0, "per_seq_s": 0, "max_resident_tokens": 0,
                      "max_seqs": 1, "samples": 1, "fit_mape": 0, "cv_mape": 0}}
         ]}
        """;

    assertThatThrownBy(() -> ProfilesFile.parse(json))
        .isInstanceOfSatisfying(ProfilesFileException.class, e -> assertThat(e.errors()).containsExactly(
            "$.schema: must be \"narwhal.profiles\", got \"narwhal.fleet\"",
            "$.schema_version: must be 1, got 2",
            "$.engines[0].process_generation: must be a non-empty string, an integer or null, got true",
            "$.engines[0].measured_at: must be a UTC time such as \"2026-12-01T21:22:22Z\", got "
                + "\"2026-12-01T21:22:22+01:00\"",
            "$.engines[0].prefill.base_s: must be a number >= 0, got -1",
            "$.engines[0].prefill.per_token_s: must be a number >= 0, got \"fast\"",
            "$.engines[0].prefill.samples: must be an integer from 1 to 2147483647, got 2.5",
            "$.engines[0].prefill.max_tokens: must be >= min_tokens (64), got 32",
            "$.engines[0].decode.max_seqs: must be an integer from 1 to 2147483647, got 0",
            "$.engines[0].decode.fit_mape: must be a number >= 0, got \"Infinity\"",
            "$.engines[0].decode.cv_mape: must be a number >= 0, got null",
            "$.engines[0].decode.cv: unknown key",
            "$.engines[1].iid: must be a non-empty string, got \"\"",
            "$.engines[1].url: must be a non-empty string, got 5",
            "$.engines[1].process_generation: required: the engine's process generation (a string, an integer, "
                + "or null when it reported none)",
            "$.engines[1].prefill: required: an object",
            "$.engines[1].decode: required: an object",
            "$.engines[2]: must be an object, got 7",
            "$.engines[4].iid: duplicate iid \"p0\": the file holds one row per engine",
            "$.extra: unknown key"));
  }

  @Test
  void malformedJson_andDuplicateKeys_stopAtOnceWithTheirPlace() {
    assertThatThrownBy(() -> ProfilesFile.parse("{\"schema\": \"narwhal.profiles\",")).isInstanceOf(
        ProfilesFileException.class).hasMessageContaining("$: invalid JSON at line 1");
    assertThatThrownBy(() -> ProfilesFile.parse("{\"schema\": 1, \"schema\": 2}")).isInstanceOf(
        ProfilesFileException.class).hasMessageContaining("$: duplicate key at line 1");
    assertThatThrownBy(() -> ProfilesFile.parse("[]")).isInstanceOf(ProfilesFileException.class)
        .hasMessageContaining("$: must be a JSON object, got []");
    assertThatThrownBy(() -> ProfilesFile.parse("")).isInstanceOf(ProfilesFileException.class)
        .hasMessageContaining("$: empty document");
    assertThatThrownBy(() -> ProfilesFile.parse("{} {}")).isInstanceOf(ProfilesFileException.class)
        .hasMessageContaining("invalid JSON");
    assertThatThrownBy(() -> ProfilesFile.parse("[".repeat(5000))).isInstanceOf(ProfilesFileException.class);
  }

  @Test
  void anUnreadableFile_namesTheFile() throws IOException {
    Path directory = Files.createDirectory(dir.resolve("profiles.json"));

    assertThatThrownBy(() -> ProfilesFile.readIfExists(directory)).isInstanceOf(ProfilesFileException.class)
        .hasMessageContaining("cannot read profiles file " + directory);
  }
}
