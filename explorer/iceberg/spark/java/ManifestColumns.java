// Every entry of every manifest a table's snapshots list, written as flat columns for Python (numpy / Arrow).
// Compiled at first use inside Spark's driver JVM with Janino (which Spark ships for its own code generation),
// so it is written in the Java subset Janino accepts: no lambdas, raw collections with casts.
//
// It reads Iceberg's ALL_ENTRIES metadata table through Iceberg's own scan (the table's FileIO, Iceberg's
// manifest reader, inherited snapshot ids and sequence numbers), one manifest task per worker thread, and writes
// each task's entries into a sub-folder c0, c1, ... (in task order; rows numbered within the task) of big-endian
// files, and manifests.txt and part.txt into the folder itself. Delete manifests are read first: a data file's
// bounds and counts are written only for the columns some equality delete compares.
//   longs.bin     per entry: manifest, status, snapshot id, data seq, file seq, content, spec id, record count,
//                 content offset (-1 when none), 1 when the file format is PUFFIN
//   manifests.txt the manifest locations, one per line, in the order their index numbers them
//   path.off/.dat, ref.off/.dat   file_path and referenced_data_file (offsets: int32 per entry + 1; -1 = null)
//   part.txt      the partition struct's field names and types, one "name<TAB>type" per line
//   partN.off/.dat  partition field N as text (Iceberg's own value: days for a date, micros for a timestamp)
//   lower.*, upper.*  bound entries: rows (int32), field ids (int32), values (offsets int32 + bytes)
//   nulls.*, values.*  count entries: rows (int32), field ids (int32), counts (int64)
//   eq.*          equality field ids: rows (int32), field ids (int32)
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

public class ManifestColumns {
  private static final String[] COLUMNS = new String[] {
      "status", "snapshot_id", "sequence_number", "file_sequence_number", "data_file.content",
      "data_file.file_path", "data_file.file_format", "data_file.spec_id", "data_file.partition",
      "data_file.record_count", "data_file.lower_bounds", "data_file.upper_bounds", "data_file.null_value_counts",
      "data_file.value_counts", "data_file.equality_ids", "data_file.referenced_data_file",
      "data_file.content_offset"};

  /** Bytes written in the order given, big-endian (a plain growable array: ByteArrayOutputStream and
   *  DataOutputStream lock on every byte). */
  private static final class Out {
    byte[] buf = new byte[1 << 12];
    int len = 0;
    final Out data = this;  // reads as out.data.writeInt(...), the DataOutputStream idiom

    private void room(int n) {
      if (len + n > buf.length) {
        byte[] bigger = new byte[Math.max(buf.length * 2, len + n)];
        System.arraycopy(buf, 0, bigger, 0, len);
        buf = bigger;
      }
    }

    void writeInt(int v) {
      room(4);
      buf[len] = (byte) (v >>> 24);
      buf[len + 1] = (byte) (v >>> 16);
      buf[len + 2] = (byte) (v >>> 8);
      buf[len + 3] = (byte) v;
      len += 4;
    }

    void writeLong(long v) {
      writeInt((int) (v >>> 32));
      writeInt((int) v);
    }

    void write(byte[] b) {
      room(b.length);
      System.arraycopy(b, 0, buf, len, b.length);
      len += b.length;
    }

    void save(File dir, String name) throws IOException {
      FileOutputStream file = new FileOutputStream(new File(dir, name));
      try {
        file.write(buf, 0, len);
      } finally {
        file.close();
      }
      buf = new byte[0];  // written once: let the bytes go
      len = 0;
    }
  }

  /** A text or bytes column: int32 offsets (a null entry repeats the offset and is listed in nulls). */
  private static final class Texts {
    final Out offsets = new Out();
    final Out values = new Out();
    final Out nulls = new Out();
    int at = 0;
    int row = 0;

    Texts() throws IOException {
      offsets.data.writeInt(0);
    }

    void add(byte[] value) throws IOException {
      if (value == null) {
        nulls.data.writeInt(row);
      } else {
        values.data.write(value);
        at += value.length;
      }
      offsets.data.writeInt(at);
      row++;
    }

    void addText(Object value) throws IOException {
      add(value == null ? null : value.toString().getBytes(StandardCharsets.UTF_8));
    }

    void save(File dir, String name) throws IOException {
      offsets.save(dir, name + ".off");
      values.save(dir, name + ".dat");
      nulls.save(dir, name + ".nul");
    }
  }

  private static int index(Types.StructType struct, String name) {
    List fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (((Types.NestedField) fields.get(i)).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no field " + name);
  }

  private static long number(Object value, long otherwise) {
    return value == null ? otherwise : ((Number) value).longValue();
  }

  private static byte[] bytes(Object value) {
    ByteBuffer buffer = (ByteBuffer) ((ByteBuffer) value).duplicate();
    byte[] out = new byte[buffer.remaining()];
    buffer.get(out);
    return out;
  }

  /** Where each column sits in the scan's rows. */
  private static final class Layout {
    int status, snapshot, seq, fileSeq, file, content, path, format, spec, records, lower, upper, nulls, values,
        eq, ref, offset, part = -1;
    int partCount;
  }

  /** One manifest task's entries, as columns. */
  private static final class Chunk implements java.util.concurrent.Callable {
    final FileScanTask task;
    final int manifest;
    final Layout at;
    final Out longs = new Out();
    final Texts paths;
    final Texts refs;
    final Texts[] parts;
    final Out[] boundRows = new Out[] {new Out(), new Out()};
    final Out[] boundFields = new Out[] {new Out(), new Out()};
    final Texts[] boundValues;
    final Out[] countRows = new Out[] {new Out(), new Out()};
    final Out[] countFields = new Out[] {new Out(), new Out()};
    final Out[] countValues = new Out[] {new Out(), new Out()};
    final Out eqRows = new Out();
    final Out eqFields = new Out();
    final java.util.Set equalityIds = new java.util.HashSet();
    java.util.Set keep = null;  // the field ids whose bounds and counts are written; null: all of them
    final File folder;  // where the worker saves the chunk once read (its buffers then go)

    Chunk(FileScanTask task, int manifest, Layout at, File folder) throws IOException {
      this.folder = folder;
      this.task = task;
      this.manifest = manifest;
      this.at = at;
      this.paths = new Texts();
      this.refs = new Texts();
      this.parts = new Texts[at.partCount];
      for (int p = 0; p < parts.length; p++) {
        parts[p] = new Texts();
      }
      this.boundValues = new Texts[] {new Texts(), new Texts()};
    }

    public Object call() throws IOException {
      int row = 0;
      CloseableIterable rows = ((DataTask) task).rows();
      try {
        Iterator rowIt = rows.iterator();
        while (rowIt.hasNext()) {
          StructLike entry = (StructLike) rowIt.next();
          StructLike f = (StructLike) entry.get(at.file, StructLike.class);
          Object format = f.get(at.format, Object.class);
          longs.data.writeLong(manifest);
          longs.data.writeLong(number(entry.get(at.status, Object.class), 0));
          longs.data.writeLong(number(entry.get(at.snapshot, Object.class), -1));
          longs.data.writeLong(number(entry.get(at.seq, Object.class), 0));
          longs.data.writeLong(number(entry.get(at.fileSeq, Object.class), 0));
          longs.data.writeLong(number(f.get(at.content, Object.class), 0));
          longs.data.writeLong(number(f.get(at.spec, Object.class), 0));
          longs.data.writeLong(number(f.get(at.records, Object.class), 0));
          longs.data.writeLong(number(f.get(at.offset, Object.class), -1));
          longs.data.writeLong(format != null && format.toString().equalsIgnoreCase("PUFFIN") ? 1 : 0);
          paths.addText(f.get(at.path, Object.class));
          refs.addText(f.get(at.ref, Object.class));
          StructLike partition = at.part < 0 ? null : (StructLike) f.get(at.part, StructLike.class);
          for (int p = 0; p < parts.length; p++) {
            parts[p].addText(partition == null ? null : partition.get(p, Object.class));
          }
          Map[] bounds = new Map[] {(Map) f.get(at.lower, Map.class), (Map) f.get(at.upper, Map.class)};
          for (int side = 0; side < 2; side++) {
            if (bounds[side] == null) {
              continue;
            }
            Iterator it = bounds[side].entrySet().iterator();
            while (it.hasNext()) {
              Map.Entry item = (Map.Entry) it.next();
              if (keep != null && !keep.contains(item.getKey())) {
                continue;
              }
              boundRows[side].data.writeInt(row);
              boundFields[side].data.writeInt(((Number) item.getKey()).intValue());
              boundValues[side].add(item.getValue() == null ? null : bytes(item.getValue()));
            }
          }
          Map[] counts = new Map[] {(Map) f.get(at.nulls, Map.class), (Map) f.get(at.values, Map.class)};
          for (int side = 0; side < 2; side++) {
            if (counts[side] == null) {
              continue;
            }
            Iterator it = counts[side].entrySet().iterator();
            while (it.hasNext()) {
              Map.Entry item = (Map.Entry) it.next();
              if (item.getValue() == null || (keep != null && !keep.contains(item.getKey()))) {
                continue;
              }
              countRows[side].data.writeInt(row);
              countFields[side].data.writeInt(((Number) item.getKey()).intValue());
              countValues[side].data.writeLong(((Number) item.getValue()).longValue());
            }
          }
          List eq = (List) f.get(at.eq, List.class);
          if (eq != null) {
            for (int k = 0; k < eq.size(); k++) {
              eqRows.data.writeInt(row);
              eqFields.data.writeInt(((Number) eq.get(k)).intValue());
              equalityIds.add(Integer.valueOf(((Number) eq.get(k)).intValue()));
            }
          }
          row++;
        }
      } finally {
        rows.close();
      }
      save(folder);
      return Integer.valueOf(row);
    }

    void save(File dir) throws IOException {
      dir.mkdirs();
      longs.save(dir, "longs.bin");
      paths.save(dir, "path");
      refs.save(dir, "ref");
      for (int p = 0; p < parts.length; p++) {
        parts[p].save(dir, "part" + p);
      }
      String[] sides = new String[] {"lower", "upper"};
      String[] countNames = new String[] {"nulls", "values"};
      for (int side = 0; side < 2; side++) {
        boundRows[side].save(dir, sides[side] + ".rows");
        boundFields[side].save(dir, sides[side] + ".fields");
        boundValues[side].save(dir, sides[side]);
        countRows[side].save(dir, countNames[side] + ".rows");
        countFields[side].save(dir, countNames[side] + ".fields");
        countValues[side].save(dir, countNames[side] + ".counts");
      }
      eqRows.save(dir, "eq.rows");
      eqFields.save(dir, "eq.fields");
    }
  }

  private static void run(java.util.concurrent.ExecutorService pool, List chunks) throws Exception {
    List futures = pool.invokeAll(chunks);
    for (int c = 0; c < futures.size(); c++) {
      ((java.util.concurrent.Future) futures.get(c)).get();  // rethrows a worker's failure
    }
  }

  private static void text(File dir, String name, String text) throws IOException {
    Out out = new Out();
    out.data.write(text.getBytes(StandardCharsets.UTF_8));
    out.save(dir, name);
  }

  /** Writes the columns into ``folder`` with ``threads`` workers; returns the number of tasks (sub-folders). */
  public int write(Table table, String folder, int threads) throws Exception {
    File dir = new File(folder);
    Table entries = MetadataTableUtils.createMetadataTableInstance(table, MetadataTableType.ALL_ENTRIES);
    TableScan scan = (TableScan) entries.newScan().select(java.util.Arrays.asList(COLUMNS));
    Types.StructType schema = scan.schema().asStruct();
    Layout at = new Layout();
    at.status = index(schema, "status");
    at.snapshot = index(schema, "snapshot_id");
    at.seq = index(schema, "sequence_number");
    at.fileSeq = index(schema, "file_sequence_number");
    at.file = index(schema, "data_file");
    Types.StructType file = ((Types.NestedField) schema.fields().get(at.file)).type().asStructType();
    at.content = index(file, "content");
    at.path = index(file, "file_path");
    at.format = index(file, "file_format");
    at.spec = index(file, "spec_id");
    at.records = index(file, "record_count");
    at.lower = index(file, "lower_bounds");
    at.upper = index(file, "upper_bounds");
    at.nulls = index(file, "null_value_counts");
    at.values = index(file, "value_counts");
    at.eq = index(file, "equality_ids");
    at.ref = index(file, "referenced_data_file");
    at.offset = index(file, "content_offset");
    List partFields = new ArrayList();
    for (int i = 0; i < file.fields().size(); i++) {
      if (((Types.NestedField) file.fields().get(i)).name().equals("partition")) {
        at.part = i;
        partFields = ((Types.NestedField) file.fields().get(i)).type().asStructType().fields();
      }
    }
    at.partCount = partFields.size();

    Map manifests = new HashMap();
    List manifestOrder = new ArrayList();
    List chunks = new ArrayList();
    CloseableIterable tasks = scan.planFiles();
    try {
      Iterator taskIt = tasks.iterator();
      while (taskIt.hasNext()) {
        FileScanTask task = (FileScanTask) taskIt.next();
        String manifest = task.file().location();
        Integer number = (Integer) manifests.get(manifest);
        if (number == null) {
          number = Integer.valueOf(manifestOrder.size());
          manifests.put(manifest, number);
          manifestOrder.add(manifest);
        }
        chunks.add(new Chunk(task, number.intValue(), at, new File(dir, "c" + chunks.size())));
      }
    } finally {
      tasks.close();
    }
    // Delete manifests first: the columns their equality deletes compare are the only ones whose bounds and
    // counts a data file needs (a delete file keeps all of its own, among them the file_path bounds).
    java.util.Set deleteManifests = new java.util.HashSet();
    Iterator snapshots = table.snapshots().iterator();
    while (snapshots.hasNext()) {
      Iterator ms = ((org.apache.iceberg.Snapshot) snapshots.next()).deleteManifests(table.io()).iterator();
      while (ms.hasNext()) {
        deleteManifests.add(((org.apache.iceberg.ManifestFile) ms.next()).path());
      }
    }
    List first = new ArrayList();
    List then = new ArrayList();
    for (int c = 0; c < chunks.size(); c++) {
      Chunk chunk = (Chunk) chunks.get(c);
      boolean deletes = deleteManifests.contains((String) manifestOrder.get(chunk.manifest));
      (deletes ? first : then).add(chunk);
    }
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      run(pool, first);
      java.util.Set keep = new java.util.HashSet();
      for (int c = 0; c < first.size(); c++) {
        keep.addAll(((Chunk) first.get(c)).equalityIds);
      }
      for (int c = 0; c < then.size(); c++) {
        ((Chunk) then.get(c)).keep = keep;
      }
      run(pool, then);
    } finally {
      pool.shutdown();
    }
    StringBuilder names = new StringBuilder();
    for (int p = 0; p < partFields.size(); p++) {
      Types.NestedField field = (Types.NestedField) partFields.get(p);
      names.append(field.name()).append('\t').append(field.type().toString()).append('\n');
    }
    text(dir, "part.txt", names.toString());
    StringBuilder order = new StringBuilder();
    for (int m = 0; m < manifestOrder.size(); m++) {
      order.append((String) manifestOrder.get(m)).append('\n');
    }
    text(dir, "manifests.txt", order.toString());
    return chunks.size();
  }
}
