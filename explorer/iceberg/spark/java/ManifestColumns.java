// The explorer's one manifest reader: Iceberg's own manifest reading in the driver JVM, handed to Python as Arrow.
// Compiled at first use inside Spark's driver JVM with Janino (which Spark ships for its own code generation),
// so it is written in the Java subset Janino accepts: no lambdas, raw collections with casts.
//
// Two questions, each answered with one Arrow IPC stream file written by Arrow Java (the Arrow Spark ships);
// the columns are listed in explorer/iceberg/spark/manifests.py (ENTRY_SCHEMA, MANIFEST_LIST_SCHEMA):
//   manifestLists  the manifest lists of the given snapshots (every snapshot when none is given): one row per
//                  (snapshot, manifest), in each list's own order.
//   entries        every entry of the manifests one snapshot lists (or every snapshot, Iceberg's ALL_ENTRIES
//                  table), except the manifests the caller already has: read through Iceberg's own metadata
//                  table scan (the table's FileIO, Iceberg's manifest reader, inherited snapshot ids and sequence
//                  numbers), one manifest per worker thread, one record batch per manifest (delete manifests first).
// Partition values keep their Iceberg type (int, long, float, double, boolean, date, time, timestamp with and
// without zone, nanosecond timestamps, string, binary, fixed, decimal); a type with no Arrow counterpart here
// (uuid, geometry, ...) is written as its text. With ``allBounds`` false, delete manifests are read first and a
// data file's bounds and counts are written only for the columns some equality delete compares (a delete file
// keeps all of its own, among them the file_path bounds): what the planner needs of a big table.
import java.io.FileOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.DataTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

public class ManifestColumns {
  private static final String[] COLUMNS = new String[] {
      "status", "snapshot_id", "sequence_number", "file_sequence_number", "data_file.content",
      "data_file.file_path", "data_file.file_format", "data_file.spec_id", "data_file.partition",
      "data_file.record_count", "data_file.file_size_in_bytes", "data_file.lower_bounds",
      "data_file.upper_bounds", "data_file.null_value_counts", "data_file.value_counts",
      "data_file.equality_ids", "data_file.referenced_data_file", "data_file.content_offset",
      "data_file.content_size_in_bytes"};

  private static final int POOL_FROM = 8;  // manifests from which a question is read by a pool of threads

  // How a partition field is written (its Iceberg type's Arrow counterpart).
  private static final int BOOLEAN = 0, INT = 1, LONG = 2, FLOAT = 3, DOUBLE = 4, DATE = 5, TIME = 6,
      TIMESTAMP = 7, TIMESTAMPTZ = 8, TIMESTAMP_NS = 9, TIMESTAMPTZ_NS = 10, STRING = 11, BINARY = 12,
      DECIMAL = 13, TEXT = 14;

  private static Field field(String name, boolean nullable, ArrowType type) {
    return new Field(name, new FieldType(nullable, type, null), new ArrayList());
  }

  private static Field nested(String name, boolean nullable, ArrowType type, Field[] children) {
    return new Field(name, new FieldType(nullable, type, null), java.util.Arrays.asList(children));
  }

  private static ArrowType int32() {
    return new ArrowType.Int(32, true);
  }

  private static ArrowType int64() {
    return new ArrowType.Int(64, true);
  }

  private static Field map(String name, ArrowType values) {
    Field entries = nested("entries", false, ArrowType.Struct.INSTANCE,
        new Field[] {field("key", false, int32()), field("value", true, values)});
    return nested(name, true, new ArrowType.Map(false), new Field[] {entries});
  }

  private static int kindOf(Type type) {
    String id = type.typeId().name();
    if (id.equals("BOOLEAN")) return BOOLEAN;
    if (id.equals("INTEGER")) return INT;
    if (id.equals("LONG")) return LONG;
    if (id.equals("FLOAT")) return FLOAT;
    if (id.equals("DOUBLE")) return DOUBLE;
    if (id.equals("DATE")) return DATE;
    if (id.equals("TIME")) return TIME;
    if (id.equals("TIMESTAMP")) {
      return ((Types.TimestampType) type).shouldAdjustToUTC() ? TIMESTAMPTZ : TIMESTAMP;
    }
    if (id.equals("TIMESTAMP_NANO")) {
      return ((Types.TimestampNanoType) type).shouldAdjustToUTC() ? TIMESTAMPTZ_NS : TIMESTAMP_NS;
    }
    if (id.equals("STRING")) return STRING;
    if (id.equals("BINARY") || id.equals("FIXED")) return BINARY;
    if (id.equals("DECIMAL")) return DECIMAL;
    return TEXT;
  }

  private static ArrowType arrowType(Type type, int kind) {
    if (kind == BOOLEAN) return ArrowType.Bool.INSTANCE;
    if (kind == INT) return int32();
    if (kind == LONG) return int64();
    if (kind == FLOAT) return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    if (kind == DOUBLE) return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    if (kind == DATE) return new ArrowType.Date(DateUnit.DAY);
    if (kind == TIME) return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
    if (kind == TIMESTAMP) return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    if (kind == TIMESTAMPTZ) return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
    if (kind == TIMESTAMP_NS) return new ArrowType.Timestamp(TimeUnit.NANOSECOND, null);
    if (kind == TIMESTAMPTZ_NS) return new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC");
    if (kind == BINARY) return ArrowType.Binary.INSTANCE;
    if (kind == DECIMAL) {
      Types.DecimalType decimal = (Types.DecimalType) type;
      return new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128);
    }
    return ArrowType.Utf8.INSTANCE;  // STRING and TEXT
  }

  /** The entries' Arrow schema; the partition struct has the table's partition type (every spec's fields). */
  private static Schema entrySchema(List partFields, int[] kinds) {
    Field[] parts = new Field[partFields.size()];
    for (int p = 0; p < parts.length; p++) {
      Types.NestedField f = (Types.NestedField) partFields.get(p);
      parts[p] = field(f.name(), true, arrowType(f.type(), kinds[p]));
    }
    Field[] fields = new Field[] {
        field("manifest", false, ArrowType.Utf8.INSTANCE),
        field("position", false, int32()),
        field("status", false, int32()),
        field("snapshot_id", true, int64()),
        field("sequence_number", true, int64()),
        field("file_sequence_number", true, int64()),
        field("content", false, int32()),
        field("file_path", false, ArrowType.Utf8.INSTANCE),
        field("file_format", true, ArrowType.Utf8.INSTANCE),
        field("spec_id", false, int32()),
        nested("partition", true, ArrowType.Struct.INSTANCE, parts),
        field("record_count", false, int64()),
        field("file_size_in_bytes", false, int64()),
        map("lower_bounds", ArrowType.Binary.INSTANCE),
        map("upper_bounds", ArrowType.Binary.INSTANCE),
        map("null_value_counts", int64()),
        map("value_counts", int64()),
        nested("equality_ids", true, ArrowType.List.INSTANCE, new Field[] {field("element", false, int32())}),
        field("referenced_data_file", true, ArrowType.Utf8.INSTANCE),
        field("content_offset", true, int64()),
        field("content_size_in_bytes", true, int64())};
    return new Schema(java.util.Arrays.asList(fields));
  }

  private static int index(Types.StructType struct, String name) {
    List fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (((Types.NestedField) fields.get(i)).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static byte[] utf8(Object value) {
    return value.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(Object value) {
    ByteBuffer buffer = (ByteBuffer) ((ByteBuffer) value).duplicate();  // Janino sees Buffer.duplicate()
    byte[] out = new byte[buffer.remaining()];
    buffer.get(out);
    return out;
  }

  /** A null list or map at ``row``. Not ListVector.setNull: it fills the offsets from the last value it knows
   *  of up to the row without moving past it, so rows set null one after another would cost a quadratic time. */
  private static void setNullList(ListVector vector, int row) {
    vector.startNewValue(row);
    vector.endValue(row, 0);
    BitVectorHelper.unsetBit(vector.getValidityBuffer(), row);
  }

  private static void setLong(BigIntVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, ((Number) value).longValue());
    }
  }

  private static void setText(VarCharVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, utf8(value));
    }
  }

  private static void setPartition(FieldVector vector, int kind, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
    } else if (kind == BOOLEAN) {
      ((BitVector) vector).setSafe(row, ((Boolean) value).booleanValue() ? 1 : 0);
    } else if (kind == INT) {
      ((IntVector) vector).setSafe(row, ((Number) value).intValue());
    } else if (kind == LONG) {
      ((BigIntVector) vector).setSafe(row, ((Number) value).longValue());
    } else if (kind == FLOAT) {
      ((Float4Vector) vector).setSafe(row, ((Number) value).floatValue());
    } else if (kind == DOUBLE) {
      ((Float8Vector) vector).setSafe(row, ((Number) value).doubleValue());
    } else if (kind == DATE) {
      ((DateDayVector) vector).setSafe(row, ((Number) value).intValue());
    } else if (kind == TIME) {
      ((TimeMicroVector) vector).setSafe(row, ((Number) value).longValue());
    } else if (kind == TIMESTAMP) {
      ((TimeStampMicroVector) vector).setSafe(row, ((Number) value).longValue());
    } else if (kind == TIMESTAMPTZ) {
      ((TimeStampMicroTZVector) vector).setSafe(row, ((Number) value).longValue());
    } else if (kind == TIMESTAMP_NS) {
      ((TimeStampNanoVector) vector).setSafe(row, ((Number) value).longValue());
    } else if (kind == TIMESTAMPTZ_NS) {
      ((TimeStampNanoTZVector) vector).setSafe(row, ((Number) value).longValue());
    } else if (kind == BINARY) {
      ((VarBinaryVector) vector).setSafe(row, bytes(value));
    } else if (kind == DECIMAL) {
      ((DecimalVector) vector).setSafe(row, (BigDecimal) value);
    } else {
      ((VarCharVector) vector).setSafe(row, utf8(value));
    }
  }

  /** Where each column sits in the scan's rows. */
  private static final class Layout {
    int status, snapshot, seq, fileSeq, file, content, path, format, spec, part, records, size, lower, upper,
        nulls, values, eq, ref, offset, blobSize;
    int[] kinds;
    Schema schema;
  }

  /** One manifest's entries as one Arrow record batch (its own vectors, filled by a worker thread). */
  private static final class Chunk implements java.util.concurrent.Callable {
    final FileScanTask task;
    final String manifest;
    final Layout at;
    final BufferAllocator allocator;
    final Set equalityIds = new HashSet();
    Set keep = null;  // the field ids whose bounds and counts are written for data files; null: all of them
    VectorSchemaRoot root;

    Chunk(FileScanTask task, String manifest, Layout at, BufferAllocator allocator) {
      this.task = task;
      this.manifest = manifest;
      this.at = at;
      this.allocator = allocator;
    }

    /** A field id -> value map at ``row``: a bound's bytes (``map<int32, binary>``) or a count
     *  (``map<int32, int64>``), as the map's value vector says; ``filter``: only the field ids in ``keep``. */
    private void fieldMap(MapVector vector, int row, Map items, boolean filter) {
      if (items == null) {
        setNullList(vector, row);
        return;
      }
      StructVector entries = (StructVector) vector.getDataVector();
      IntVector keys = (IntVector) entries.getChildByOrdinal(0);
      FieldVector values = (FieldVector) entries.getChildByOrdinal(1);
      int start = vector.startNewValue(row);
      int n = 0;
      Iterator it = items.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry item = (Map.Entry) it.next();
        if (filter && !keep.contains(item.getKey())) {
          continue;
        }
        entries.setIndexDefined(start + n);
        keys.setSafe(start + n, ((Number) item.getKey()).intValue());
        if (item.getValue() == null) {
          values.setNull(start + n);
        } else if (values instanceof VarBinaryVector) {
          ((VarBinaryVector) values).setSafe(start + n, bytes(item.getValue()));
        } else {
          ((BigIntVector) values).setSafe(start + n, ((Number) item.getValue()).longValue());
        }
        n++;
      }
      vector.endValue(row, n);
    }

    public Object call() throws Exception {
      root = VectorSchemaRoot.create(at.schema, allocator);  // vectors grow as they are set
      VarCharVector manifestColumn = (VarCharVector) root.getVector("manifest");
      IntVector position = (IntVector) root.getVector("position");
      IntVector status = (IntVector) root.getVector("status");
      BigIntVector snapshot = (BigIntVector) root.getVector("snapshot_id");
      BigIntVector seq = (BigIntVector) root.getVector("sequence_number");
      BigIntVector fileSeq = (BigIntVector) root.getVector("file_sequence_number");
      IntVector content = (IntVector) root.getVector("content");
      VarCharVector path = (VarCharVector) root.getVector("file_path");
      VarCharVector format = (VarCharVector) root.getVector("file_format");
      IntVector spec = (IntVector) root.getVector("spec_id");
      StructVector partition = (StructVector) root.getVector("partition");
      BigIntVector records = (BigIntVector) root.getVector("record_count");
      BigIntVector size = (BigIntVector) root.getVector("file_size_in_bytes");
      MapVector lower = (MapVector) root.getVector("lower_bounds");
      MapVector upper = (MapVector) root.getVector("upper_bounds");
      MapVector nulls = (MapVector) root.getVector("null_value_counts");
      MapVector values = (MapVector) root.getVector("value_counts");
      ListVector eq = (ListVector) root.getVector("equality_ids");
      IntVector eqIds = (IntVector) eq.getDataVector();
      VarCharVector ref = (VarCharVector) root.getVector("referenced_data_file");
      BigIntVector offset = (BigIntVector) root.getVector("content_offset");
      BigIntVector blobSize = (BigIntVector) root.getVector("content_size_in_bytes");
      FieldVector[] parts = new FieldVector[at.kinds.length];
      for (int p = 0; p < parts.length; p++) {
        parts[p] = (FieldVector) partition.getChildByOrdinal(p);
      }
      byte[] manifestBytes = utf8(manifest);
      int row = 0;
      CloseableIterable rows = ((DataTask) task).rows();
      try {
        Iterator rowIt = rows.iterator();
        while (rowIt.hasNext()) {
          StructLike entry = (StructLike) rowIt.next();
          StructLike f = (StructLike) entry.get(at.file, StructLike.class);
          int kind = ((Number) f.get(at.content, Object.class)).intValue();
          manifestColumn.setSafe(row, manifestBytes);
          position.setSafe(row, row);
          status.setSafe(row, ((Number) entry.get(at.status, Object.class)).intValue());
          setLong(snapshot, row, entry.get(at.snapshot, Object.class));
          setLong(seq, row, entry.get(at.seq, Object.class));
          setLong(fileSeq, row, entry.get(at.fileSeq, Object.class));
          content.setSafe(row, kind);
          path.setSafe(row, utf8(f.get(at.path, Object.class)));
          setText(format, row, f.get(at.format, Object.class));
          spec.setSafe(row, ((Number) f.get(at.spec, Object.class)).intValue());
          StructLike values_ = at.part < 0 ? null : (StructLike) f.get(at.part, StructLike.class);
          if (values_ == null) {
            partition.setNull(row);
          } else {
            partition.setIndexDefined(row);
            for (int p = 0; p < parts.length; p++) {
              setPartition(parts[p], at.kinds[p], row, values_.get(p, Object.class));
            }
          }
          records.setSafe(row, ((Number) f.get(at.records, Object.class)).longValue());
          size.setSafe(row, ((Number) f.get(at.size, Object.class)).longValue());
          boolean filter = keep != null && kind == 0;
          fieldMap(lower, row, (Map) f.get(at.lower, Map.class), filter);
          fieldMap(upper, row, (Map) f.get(at.upper, Map.class), filter);
          fieldMap(nulls, row, (Map) f.get(at.nulls, Map.class), filter);
          fieldMap(values, row, (Map) f.get(at.values, Map.class), filter);
          List ids = (List) f.get(at.eq, List.class);
          if (ids == null) {
            setNullList(eq, row);
          } else {
            int start = eq.startNewValue(row);
            for (int k = 0; k < ids.size(); k++) {
              int id = ((Number) ids.get(k)).intValue();
              eqIds.setSafe(start + k, id);
              equalityIds.add(Integer.valueOf(id));
            }
            eq.endValue(row, ids.size());
          }
          setText(ref, row, f.get(at.ref, Object.class));
          setLong(offset, row, f.get(at.offset, Object.class));
          setLong(blobSize, row, f.get(at.blobSize, Object.class));
          row++;
        }
      } finally {
        rows.close();
      }
      root.setRowCount(row);
      return Integer.valueOf(row);
    }
  }

  /** The tables' snapshots a question is about: one, or all of them. */
  private static List snapshots(Table table, long snapshotId) {
    List out = new ArrayList();
    if (snapshotId >= 0) {
      Snapshot one = table.snapshot(snapshotId);
      if (one == null) {
        throw new IllegalArgumentException("the table has no snapshot " + snapshotId);
      }
      out.add(one);
    } else {
      Iterator it = table.snapshots().iterator();
      while (it.hasNext()) {
        out.add(it.next());
      }
    }
    return out;
  }

  /** A child of Spark's own Arrow allocator (closed after writing: it fails loudly if a buffer leaked). */
  private static BufferAllocator allocator() {
    return org.apache.spark.sql.util.ArrowUtils.rootAllocator().newChildAllocator("ManifestColumns", 0,
        Long.MAX_VALUE);
  }

  private static ArrowStreamWriter open(VectorSchemaRoot root, String path) throws Exception {
    // buffered: the writer's many small writes (a message's header, its padding) become few system calls
    java.io.OutputStream out = new java.io.BufferedOutputStream(new FileOutputStream(path), 1 << 16);
    ArrowStreamWriter writer = new ArrowStreamWriter(root, new DictionaryProvider.MapDictionaryProvider(
        new org.apache.arrow.vector.dictionary.Dictionary[0]), out);
    writer.start();
    return writer;
  }

  /**
   * The entries of the manifests snapshot ``snapshotId`` lists (every snapshot's when negative), without the
   * manifests in ``skip`` (their locations, one a line; a location holds no line break), written to ``path`` as one Arrow IPC stream, one batch per manifest;
   * the number of entries. ``allBounds`` false: a data file's bounds and counts only for equality-delete columns.
   */
  public long entries(Table table, long snapshotId, String skip, boolean allBounds, String path, int threads)
      throws Exception {
    Table metadataTable = MetadataTableUtils.createMetadataTableInstance(table,
        snapshotId >= 0 ? MetadataTableType.ENTRIES : MetadataTableType.ALL_ENTRIES);
    TableScan scan = (TableScan) metadataTable.newScan().select(java.util.Arrays.asList(COLUMNS));
    if (snapshotId >= 0) {
      scan = (TableScan) scan.useSnapshot(snapshotId);
    }
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
    at.part = index(file, "partition");  // no partition struct when no spec has fields
    at.records = index(file, "record_count");
    at.size = index(file, "file_size_in_bytes");
    at.lower = index(file, "lower_bounds");
    at.upper = index(file, "upper_bounds");
    at.nulls = index(file, "null_value_counts");
    at.values = index(file, "value_counts");
    at.eq = index(file, "equality_ids");
    at.ref = index(file, "referenced_data_file");
    at.offset = index(file, "content_offset");
    at.blobSize = index(file, "content_size_in_bytes");
    List partFields = at.part < 0 ? new ArrayList()
        : ((Types.NestedField) file.fields().get(at.part)).type().asStructType().fields();
    at.kinds = new int[partFields.size()];
    for (int p = 0; p < at.kinds.length; p++) {
      at.kinds[p] = kindOf(((Types.NestedField) partFields.get(p)).type());
    }
    at.schema = entrySchema(partFields, at.kinds);

    Set skipped = new HashSet();
    String[] skipLines = skip == null || skip.isEmpty() ? new String[0] : skip.split("\n");
    for (int s = 0; s < skipLines.length; s++) {
      skipped.add(skipLines[s]);
    }
    Set deleteManifests = new HashSet();
    List snaps = snapshots(table, snapshotId);
    for (int s = 0; s < snaps.size(); s++) {
      Iterator ms = ((Snapshot) snaps.get(s)).deleteManifests(table.io()).iterator();
      while (ms.hasNext()) {
        deleteManifests.add(((ManifestFile) ms.next()).path());
      }
    }
    BufferAllocator allocator = allocator();
    List first = new ArrayList();  // delete manifests, read first
    List then = new ArrayList();
    CloseableIterable tasks = scan.planFiles();
    try {
      Iterator taskIt = tasks.iterator();
      while (taskIt.hasNext()) {
        FileScanTask task = (FileScanTask) taskIt.next();
        String manifest = task.file().location();
        if (skipped.contains(manifest)) {
          continue;
        }
        Chunk chunk = new Chunk(task, manifest, at, allocator);
        (deleteManifests.contains(manifest) ? first : then).add(chunk);
      }
    } finally {
      tasks.close();
    }
    // a pool only pays for itself on many manifests (starting its threads costs milliseconds)
    java.util.concurrent.ExecutorService pool = first.size() + then.size() < POOL_FROM || threads <= 1 ? null
        : java.util.concurrent.Executors.newFixedThreadPool(threads);
    VectorSchemaRoot out = VectorSchemaRoot.create(at.schema, allocator);
    Sink sink = null;
    try {
      sink = new Sink(out, path);
      run(pool, first, sink);
      if (!allBounds) {
        Set keep = new HashSet();
        for (int c = 0; c < first.size(); c++) {
          keep.addAll(((Chunk) first.get(c)).equalityIds);
        }
        for (int c = 0; c < then.size(); c++) {
          ((Chunk) then.get(c)).keep = keep;
        }
      }
      run(pool, then, sink);
      sink.writer.end();
    } finally {
      if (pool != null) {
        pool.shutdownNow();  // after a failure: no worker may still fill vectors when the allocator closes
        pool.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
      }
      if (sink != null) {
        sink.writer.close();
      }
      List all = new ArrayList(first);
      all.addAll(then);
      for (int c = 0; c < all.size(); c++) {
        Chunk chunk = (Chunk) all.get(c);
        if (chunk.root != null) {
          chunk.root.close();
        }
      }
      out.close();
      allocator.close();
    }
    return sink.written;
  }

  /** The stream being written: each manifest's batch goes out (and its vectors go) as soon as it is read. */
  private static final class Sink {
    final ArrowStreamWriter writer;
    final VectorLoader loader;
    long written = 0;

    Sink(VectorSchemaRoot out, String path) throws Exception {
      writer = open(out, path);
      loader = new VectorLoader(out);
    }

    void write(Chunk chunk) throws Exception {
      ArrowRecordBatch batch = new VectorUnloader(chunk.root).getRecordBatch();
      try {
        loader.load(batch);
      } finally {
        batch.close();
      }
      written += chunk.root.getRowCount();
      chunk.root.close();
      chunk.root = null;
      writer.writeBatch();
    }
  }

  private static void run(java.util.concurrent.ExecutorService pool, List chunks, Sink sink) throws Exception {
    if (pool == null) {
      for (int c = 0; c < chunks.size(); c++) {
        ((Chunk) chunks.get(c)).call();
        sink.write((Chunk) chunks.get(c));
      }
      return;
    }
    List futures = new ArrayList();
    for (int c = 0; c < chunks.size(); c++) {
      futures.add(pool.submit((java.util.concurrent.Callable) chunks.get(c)));
    }
    for (int c = 0; c < futures.size(); c++) {
      ((java.util.concurrent.Future) futures.get(c)).get();  // rethrows a worker's failure
      sink.write((Chunk) chunks.get(c));
    }
  }

  /**
   * The manifest lists of the given snapshots (every snapshot's when ``snapshotIds`` is null or empty), read
   * through the table's FileIO, written to ``path`` as one Arrow IPC stream; the number of rows.
   */
  public long manifestLists(Table table, long[] snapshotIds, String path) throws Exception {
    List snaps = new ArrayList();
    if (snapshotIds == null || snapshotIds.length == 0) {
      snaps = snapshots(table, -1);
    } else {
      for (int s = 0; s < snapshotIds.length; s++) {
        snaps.addAll(snapshots(table, snapshotIds[s]));
      }
    }
    Field[] fields = new Field[] {
        field("snapshot_id", false, int64()),
        field("position", false, int32()),
        field("manifest_path", false, ArrowType.Utf8.INSTANCE),
        field("manifest_length", false, int64()),
        field("content", false, int32()),
        field("partition_spec_id", false, int32()),
        field("sequence_number", false, int64()),
        field("min_sequence_number", false, int64()),
        field("added_snapshot_id", true, int64())};
    BufferAllocator allocator = allocator();
    VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(java.util.Arrays.asList(fields)), allocator);
    int row = 0;
    try {
      root.allocateNew();
      for (int s = 0; s < snaps.size(); s++) {
        Snapshot snap = (Snapshot) snaps.get(s);
        List manifests = snap.allManifests(table.io());
        for (int m = 0; m < manifests.size(); m++) {
          ManifestFile manifest = (ManifestFile) manifests.get(m);
          ((BigIntVector) root.getVector(0)).setSafe(row, snap.snapshotId());
          ((IntVector) root.getVector(1)).setSafe(row, m);
          ((VarCharVector) root.getVector(2)).setSafe(row, utf8(manifest.path()));
          ((BigIntVector) root.getVector(3)).setSafe(row, manifest.length());
          ((IntVector) root.getVector(4)).setSafe(row, manifest.content().id());
          ((IntVector) root.getVector(5)).setSafe(row, manifest.partitionSpecId());
          ((BigIntVector) root.getVector(6)).setSafe(row, manifest.sequenceNumber());
          ((BigIntVector) root.getVector(7)).setSafe(row, manifest.minSequenceNumber());
          setLong((BigIntVector) root.getVector(8), row, manifest.snapshotId());
          row++;
        }
      }
      root.setRowCount(row);
      ArrowStreamWriter writer = open(root, path);
      try {
        writer.writeBatch();
        writer.end();
      } finally {
        writer.close();
      }
    } finally {
      root.close();
      allocator.close();
    }
    return row;
  }
}
