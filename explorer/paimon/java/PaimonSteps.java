// Apache Paimon 0.9.0's own Java library driving one primary-key table per run, inside the explorer's JVM.
//
// Compiled at first use with Janino (Spark ships it) against a class loader that holds Paimon's jar (a child of
// Spark's), so Spark and Iceberg never see Paimon's classes. Written in the Java subset Janino accepts: no
// lambdas, raw collections with casts. What it reads comes back on the Java helpers' one wire (Arrow IPC streams
// as a byte[], written with the Arrow Java Spark ships, whose classes this loader sees through Spark's: the
// conventions are in explorer/jvm/wire.py), and explorer/paimon/java_runner.py turns it into the
// explorer's typed capture, so py4j never has to call into Paimon's non-public implementation classes.
//
// create()   a FileSystemCatalog on a local warehouse and the table (bucket=1, parquet files)
// write()    one commit: a batch write (a fresh BatchWriteBuilder) or a named stream writer kept across commits;
//            every write gets an IOManager temp directory (lookup needs one) and waits for its compaction
// compact()  write.compact(partition, bucket 0, full) for every partition, then one commit
// state()    one snapshot as Paimon stores it: its metadata, every live data file (level, sequence numbers),
//            the files the snapshot added and deleted, its changelog files, the deletion vectors a batch read
//            applies, the batch read itself and the changelog read: seven Arrow IPC streams (listed at state())
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowUtils;
import org.apache.spark.sql.util.ArrowUtils;

public class PaimonSteps {

  private final HashMap runs = new HashMap(); // run id -> Run

  public static class Run {
    Catalog catalog;
    FileStoreTable table;
    String[] types;
    String ioDir;
    HashMap streams = new HashMap(); // writer name -> Object[] {StreamTableWrite, StreamTableCommit, long[]}
  }

  // ------------------------------------------------------------------------------------------ table

  public String create(String runId, String warehouse, String ioDir, String database, String name,
                       String[] columns, String[] types, String[] primaryKey, String[] partitionKeys,
                       Map options) throws Exception {
    Run run = new Run();
    run.catalog = CatalogFactory.createCatalog(CatalogContext.create(new Path(warehouse)));
    run.catalog.createDatabase(database, true);
    Schema.Builder builder = Schema.newBuilder();
    for (int i = 0; i < columns.length; i++) {
      builder.column(columns[i], paimonType(types[i]));
    }
    List pk = new ArrayList();
    for (int i = 0; i < primaryKey.length; i++) pk.add(primaryKey[i]);
    List parts = new ArrayList();
    for (int i = 0; i < partitionKeys.length; i++) parts.add(partitionKeys[i]);
    builder.primaryKey(pk);
    builder.partitionKeys(parts);
    builder.options(options);
    Identifier id = Identifier.create(database, name);
    run.catalog.createTable(id, builder.build(), false);
    run.table = (FileStoreTable) run.catalog.getTable(id);
    run.types = types;
    run.ioDir = ioDir;
    runs.put(runId, run);
    return run.table.location().toString();
  }

  private static DataType paimonType(String type) {
    if (type.equals("int")) return DataTypes.INT();
    if (type.equals("long")) return DataTypes.BIGINT();
    if (type.equals("double")) return DataTypes.DOUBLE();
    if (type.equals("string")) return DataTypes.STRING();
    if (type.equals("boolean")) return DataTypes.BOOLEAN();
    if (type.equals("date")) return DataTypes.DATE();
    if (type.equals("timestamp")) return DataTypes.TIMESTAMP(6);
    throw new IllegalArgumentException("no Paimon type for " + type);
  }

  private Run run(String runId) {
    Run run = (Run) runs.get(runId);
    if (run == null) throw new IllegalStateException("no Paimon run " + runId);
    return run;
  }

  public void close(String runId) throws Exception {
    Run run = (Run) runs.remove(runId);
    if (run == null) return;
    Exception first = null;
    for (Iterator it = run.streams.values().iterator(); it.hasNext(); ) {
      Object[] stream = (Object[]) it.next();
      try {
        ((StreamTableWrite) stream[0]).close();
        ((StreamTableCommit) stream[1]).close();
      } catch (Exception e) {
        if (first == null) first = e;
      }
    }
    run.catalog.close();
    if (first != null) throw first;
  }

  // ------------------------------------------------------------------------------------------ steps

  // rows: one Object[] per record, the column values in order (dates as epoch days, timestamps as epoch
  // microseconds); kinds: "+I", "-U", "+U" or "-D" per record. writer null: a batch write.
  public void write(String runId, String writer, List rows, List kinds) throws Exception {
    Run run = run(runId);
    if (writer == null) {
      BatchWriteBuilder builder = run.table.newBatchWriteBuilder();
      BatchTableWrite write = (BatchTableWrite) builder.newWrite();
      BatchTableCommit commit = builder.newCommit();
      IOManager io = IOManager.create(run.ioDir);
      try {
        write.withIOManager(io);
        for (int i = 0; i < rows.size(); i++) {
          write.write(toRow(run, (List) rows.get(i), (String) kinds.get(i)));
        }
        commit.commit(write.prepareCommit());
      } finally {
        write.close();
        commit.close();
        io.close();
      }
      return;
    }
    Object[] stream = (Object[]) run.streams.get(writer);
    if (stream == null) {
      StreamWriteBuilder builder = run.table.newStreamWriteBuilder();
      StreamTableWrite write = (StreamTableWrite) builder.newWrite();
      write.withIOManager(IOManager.create(run.ioDir));
      stream = new Object[] {write, builder.newCommit(), new long[] {1L}};
      run.streams.put(writer, stream);
    }
    StreamTableWrite write = (StreamTableWrite) stream[0];
    StreamTableCommit commit = (StreamTableCommit) stream[1];
    long[] ident = (long[]) stream[2];
    for (int i = 0; i < rows.size(); i++) {
      write.write(toRow(run, (List) rows.get(i), (String) kinds.get(i)));
    }
    // waitCompaction: like a Flink checkpoint with lookup-wait (the default), the commit carries the
    // compaction the write triggered, so every run is deterministic.
    commit.commit(ident[0], write.prepareCommit(true, ident[0]));
    ident[0] = ident[0] + 1;
  }

  public void compact(String runId, boolean full) throws Exception {
    Run run = run(runId);
    // like Paimon's dedicated compaction job (CompactAction), which runs with write-only switched off: a
    // write-only table's own writers never compact (NoopCompactManager)
    FileStoreTable table = run.table.copy(java.util.Collections.singletonMap("write-only", "false"));
    List partitions = table.newSnapshotReader().partitions();
    BatchWriteBuilder builder = table.newBatchWriteBuilder();
    BatchTableWrite write = (BatchTableWrite) builder.newWrite();
    BatchTableCommit commit = builder.newCommit();
    IOManager io = IOManager.create(run.ioDir);
    try {
      write.withIOManager(io);
      for (int i = 0; i < partitions.size(); i++) {
        write.compact((BinaryRow) partitions.get(i), 0, full);
      }
      commit.commit(write.prepareCommit());
    } finally {
      write.close();
      commit.close();
      io.close();
    }
  }

  private static GenericRow toRow(Run run, List values, String kind) {
    GenericRow row = new GenericRow(RowKind.fromShortString(kind), values.size());
    for (int i = 0; i < values.size(); i++) {
      row.setField(i, toPaimon(run.types[i], values.get(i)));
    }
    return row;
  }

  private static Object toPaimon(String type, Object value) {
    if (value == null) return null;
    if (type.equals("int") || type.equals("date")) return new Integer(((Number) value).intValue());
    if (type.equals("long")) return new Long(((Number) value).longValue());
    if (type.equals("double")) return new Double(((Number) value).doubleValue());
    if (type.equals("string")) return BinaryString.fromString((String) value);
    if (type.equals("boolean")) return (Boolean) value;
    if (type.equals("timestamp")) return Timestamp.fromMicros(((Number) value).longValue());
    throw new IllegalArgumentException("no Paimon type for " + type);
  }

  // ------------------------------------------------------------------------------------------ reading

  public long latestSnapshot(String runId) {
    Long id = run(runId).table.snapshotManager().latestSnapshotId();
    return id == null ? 0L : id.longValue();
  }

  // One snapshot as seven Arrow IPC streams back to back, in this order (the wire:
  // explorer/jvm/wire.py), as a byte[]:
  //   [0] snapshot          one row: id, commit_kind, commit_identifier, time_millis, changelog_record_count
  //   [1] live              the snapshot's live data files            } one row per manifest entry: kind (ADD or
  //   [2] delta             the files it added and deleted             } DELETE), name, path, bucket, level,
  //   [3] changelog_files   its changelog files                        } min/max_sequence_number, row_count, source
  //                         (null when Paimon records none), then one column per partition key, "partition.<key>"
  //   [4] deletion_vectors  data_file, index_file, offset, length, positions (list<int64>: the deleted rows)
  //   [5] rows              the batch read: one column per table column, named and typed as the table's
  //   [6] changelog         the changelog read: _ROW_KIND ("+I", "-U", "+U", "-D"), then the table's columns
  // Values keep their Paimon type: int int32, long int64, double float64, string utf8, boolean bool, date date32,
  // timestamp timestamp[us] (no time zone, as Paimon's TIMESTAMP(6)); a missing value is Arrow's null.
  public byte[] state(String runId, long snapshotId) throws Exception {
    Run run = run(runId);
    FileStoreTable table = run.table;
    Snapshot snapshot = table.snapshotManager().snapshot(snapshotId);
    RowType partitionType = table.schema().logicalPartitionType();
    String[] partTypes = new String[partitionType.getFieldCount()];
    for (int p = 0; p < partTypes.length; p++) {
      partTypes[p] = run.types[table.schema().fieldNames().indexOf(partitionType.getFieldNames().get(p))];
    }
    BufferAllocator allocator = ArrowUtils.rootAllocator().newChildAllocator("PaimonSteps", 0, Long.MAX_VALUE);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Exception failure = null;
    try {
      Sheet snap = new Sheet(allocator, new Field[] {
          field("id", false, int64()), field("commit_kind", false, ArrowType.Utf8.INSTANCE),
          field("commit_identifier", false, int64()), field("time_millis", false, int64()),
          field("changelog_record_count", true, int64())});
      ((BigIntVector) snap.vector(0)).setSafe(0, snapshot.id());
      setText(snap.vector(1), 0, snapshot.commitKind().toString());
      ((BigIntVector) snap.vector(2)).setSafe(0, snapshot.commitIdentifier());
      ((BigIntVector) snap.vector(3)).setSafe(0, snapshot.timeMillis());
      set(snap.vector(4), 0, "long", snapshot.changelogRecordCount());
      snap.rows = 1;
      snap.write(out);
      entries(out, allocator, table.store().newScan().withSnapshot(snapshotId).plan().files(), table,
              partitionType, partTypes);
      entries(out, allocator,
              table.store().newScan().withSnapshot(snapshotId).withKind(ScanMode.DELTA).plan().files(),
              table, partitionType, partTypes);
      // A snapshot without a changelog manifest list has no changelog: two scans saved.
      boolean hasChangelog = snapshot.changelogManifestList() != null;
      entries(out, allocator, hasChangelog
              ? table.store().newScan().withSnapshot(snapshotId).withKind(ScanMode.CHANGELOG).plan().files()
              : new ArrayList(), table, partitionType, partTypes);
      // The deletion vectors a batch read of this snapshot applies, per data file: the deleted row positions
      // (only deletion-vector tables have any: a scan saved for the others).
      Sheet dvs = new Sheet(allocator, new Field[] {
          field("data_file", false, ArrowType.Utf8.INSTANCE), field("index_file", false, ArrowType.Utf8.INSTANCE),
          field("offset", false, int64()), field("length", false, int64()),
          nested("positions", false, ArrowType.List.INSTANCE, new Field[] {field("element", false, int64())})});
      ListVector positions = (ListVector) dvs.vector(4);
      BigIntVector positionValues = (BigIntVector) positions.getDataVector();
      int written = 0;
      List splits = table.coreOptions().deletionVectorsEnabled()
          ? table.newSnapshotReader().withSnapshot(snapshotId).read().splits() : new ArrayList();
      for (int s = 0; s < splits.size(); s++) {
        DataSplit split = (DataSplit) splits.get(s);
        if (!split.deletionFiles().isPresent()) continue;
        List files = (List) split.deletionFiles().get();
        List metas = split.dataFiles();
        for (int f = 0; f < files.size(); f++) {
          DeletionFile dvFile = (DeletionFile) files.get(f);
          if (dvFile == null) continue;
          DataFileMeta meta = (DataFileMeta) metas.get(f);
          DeletionVector dv = DeletionVector.read(table.fileIO(), dvFile);
          int row = dvs.rows++;
          setText(dvs.vector(0), row, meta.fileName());
          setText(dvs.vector(1), row, new Path(dvFile.path()).getName());
          ((BigIntVector) dvs.vector(2)).setSafe(row, dvFile.offset());
          ((BigIntVector) dvs.vector(3)).setSafe(row, dvFile.length());
          positions.startNewValue(row);
          int count = 0;
          for (long p = 0; p < meta.rowCount(); p++) {
            if (dv.isDeleted(p)) {
              positionValues.setSafe(written + count, p);
              count++;
            }
          }
          written += count;
          positions.endValue(row, count);
        }
      }
      positionValues.setValueCount(written);
      dvs.write(out);
      // The batch read (Paimon's own scan: for first-row and deletion-vector tables it skips level 0).
      Map at = new HashMap();
      at.put("scan.snapshot-id", String.valueOf(snapshotId));
      Table pinned = table.copy(at);
      ReadBuilder read = pinned.newReadBuilder();
      rows(out, allocator, read.newRead().createReader(read.newScan().plan()), table.rowType(), run.types, false);
      // The changelog this snapshot carries, read as a streaming reader reads it (with row kinds).
      List changes = hasChangelog
          ? table.newSnapshotReader().withSnapshot(snapshotId).withMode(ScanMode.CHANGELOG).read().splits()
          : new ArrayList();
      rows(out, allocator, changes.isEmpty() ? null : table.newReadBuilder().newRead().createReader(changes),
           table.rowType(), run.types, true);
    } catch (Exception e) {
      failure = e;
      throw e;
    } finally {
      // a failed read leaves a sheet's buffers behind: the allocator's complaint must not hide the failure
      try {
        allocator.close();
      } catch (RuntimeException leak) {
        if (failure == null) throw leak;
      }
    }
    return out.toByteArray();
  }

  private static void entries(ByteArrayOutputStream out, BufferAllocator allocator, List entries,
                              FileStoreTable table, RowType partitionType, String[] partTypes) throws Exception {
    Field[] fields = new Field[9 + partTypes.length];
    fields[0] = field("kind", false, ArrowType.Utf8.INSTANCE);
    fields[1] = field("name", false, ArrowType.Utf8.INSTANCE);
    fields[2] = field("path", false, ArrowType.Utf8.INSTANCE);
    fields[3] = field("bucket", false, int32());
    fields[4] = field("level", false, int32());
    fields[5] = field("min_sequence_number", false, int64());
    fields[6] = field("max_sequence_number", false, int64());
    fields[7] = field("row_count", false, int64());
    fields[8] = field("source", true, ArrowType.Utf8.INSTANCE);
    for (int p = 0; p < partTypes.length; p++) {
      fields[9 + p] = field("partition." + partitionType.getFieldNames().get(p), true, arrowType(partTypes[p]));
    }
    Sheet sheet = new Sheet(allocator, fields);
    for (int i = 0; i < entries.size(); i++) {
      ManifestEntry entry = (ManifestEntry) entries.get(i);
      DataFileMeta meta = entry.file();
      setText(sheet.vector(0), i, entry.kind() == FileKind.ADD ? "ADD" : "DELETE");
      setText(sheet.vector(1), i, meta.fileName());
      setText(sheet.vector(2), i,
          table.store().pathFactory().createDataFilePathFactory(entry.partition(), entry.bucket())
              .toPath(meta.fileName()).toString());
      ((IntVector) sheet.vector(3)).setSafe(i, entry.bucket());
      ((IntVector) sheet.vector(4)).setSafe(i, meta.level());
      ((BigIntVector) sheet.vector(5)).setSafe(i, meta.minSequenceNumber());
      ((BigIntVector) sheet.vector(6)).setSafe(i, meta.maxSequenceNumber());
      ((BigIntVector) sheet.vector(7)).setSafe(i, meta.rowCount());
      setText(sheet.vector(8), i, meta.fileSource().isPresent() ? meta.fileSource().get().toString() : null);
      for (int p = 0; p < partTypes.length; p++) {
        set(sheet.vector(9 + p), i, partTypes[p],
            InternalRowUtils.get(entry.partition(), p, partitionType.getTypeAt(p)));
      }
    }
    sheet.rows = entries.size();
    sheet.write(out);
  }

  // reader null: no rows (the stream still carries the columns)
  private static void rows(ByteArrayOutputStream out, BufferAllocator allocator, RecordReader reader,
                           RowType type, String[] types, boolean withKind) throws Exception {
    int first = withKind ? 1 : 0;
    Field[] fields = new Field[first + type.getFieldCount()];
    if (withKind) fields[0] = field("_ROW_KIND", false, ArrowType.Utf8.INSTANCE);
    for (int i = 0; i < type.getFieldCount(); i++) {
      fields[first + i] = field((String) type.getFieldNames().get(i), true, arrowType(types[i]));
    }
    Sheet sheet = new Sheet(allocator, fields);
    if (reader != null) {
      RecordReaderIterator it = new RecordReaderIterator(reader);
      try {
        while (it.hasNext()) {
          InternalRow row = (InternalRow) it.next();
          int at = sheet.rows++;
          if (withKind) setText(sheet.vector(0), at, row.getRowKind().shortString());
          for (int i = 0; i < type.getFieldCount(); i++) {
            set(sheet.vector(first + i), at, types[i], InternalRowUtils.get(row, i, type.getTypeAt(i)));
          }
        }
      } finally {
        it.close();
      }
    }
    sheet.write(out);
  }

  // ------------------------------------------------------------------------------------------ the wire

  /** One table being filled: its vectors over a child allocator, written as one Arrow IPC stream. */
  private static final class Sheet {
    final VectorSchemaRoot root;
    int rows;

    Sheet(BufferAllocator allocator, Field[] fields) {
      root = VectorSchemaRoot.create(new org.apache.arrow.vector.types.pojo.Schema(Arrays.asList(fields)),
                                     allocator);
      root.allocateNew();
    }

    FieldVector vector(int index) {
      return root.getVector(index);
    }

    void write(ByteArrayOutputStream out) throws Exception {
      try {
        root.setRowCount(rows);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, new DictionaryProvider.MapDictionaryProvider(
            new Dictionary[0]), out);
        writer.start();
        writer.writeBatch();
        writer.end();
      } finally {
        root.close();
      }
    }
  }

  private static Field field(String name, boolean nullable, ArrowType type) {
    return new Field(name, new FieldType(nullable, type, null), new ArrayList());
  }

  private static Field nested(String name, boolean nullable, ArrowType type, Field[] children) {
    return new Field(name, new FieldType(nullable, type, null), Arrays.asList(children));
  }

  private static ArrowType int32() {
    return new ArrowType.Int(32, true);
  }

  private static ArrowType int64() {
    return new ArrowType.Int(64, true);
  }

  /** The Arrow type of an explorer column type (the types paimonType knows). */
  private static ArrowType arrowType(String type) {
    if (type.equals("int")) return int32();
    if (type.equals("long")) return int64();
    if (type.equals("double")) return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    if (type.equals("string")) return ArrowType.Utf8.INSTANCE;
    if (type.equals("boolean")) return ArrowType.Bool.INSTANCE;
    if (type.equals("date")) return new ArrowType.Date(DateUnit.DAY);
    if (type.equals("timestamp")) return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    throw new IllegalArgumentException("no Arrow type for " + type);
  }

  private static void setText(FieldVector vector, int row, String text) {
    if (text == null) {
      ((VarCharVector) vector).setNull(row);
    } else {
      ((VarCharVector) vector).setSafe(row, text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A value as InternalRowUtils.get gives it (Integer, Long, Double, BinaryString, Boolean, Timestamp). */
  private static void set(FieldVector vector, int row, String type, Object value) {
    if (value == null) {
      if (vector instanceof BaseVariableWidthVector) ((BaseVariableWidthVector) vector).setNull(row);
      else ((BaseFixedWidthVector) vector).setNull(row);
    } else if (type.equals("int")) {
      ((IntVector) vector).setSafe(row, ((Number) value).intValue());
    } else if (type.equals("date")) {
      ((DateDayVector) vector).setSafe(row, ((Number) value).intValue());
    } else if (type.equals("long")) {
      ((BigIntVector) vector).setSafe(row, ((Number) value).longValue());
    } else if (type.equals("double")) {
      ((Float8Vector) vector).setSafe(row, ((Number) value).doubleValue());
    } else if (type.equals("string")) {
      setText(vector, row, value.toString());
    } else if (type.equals("boolean")) {
      ((BitVector) vector).setSafe(row, ((Boolean) value).booleanValue() ? 1 : 0);
    } else if (type.equals("timestamp")) {
      ((TimeStampMicroVector) vector).setSafe(row, ((Timestamp) value).toMicros());
    } else {
      throw new IllegalArgumentException("no Arrow type for " + type);
    }
  }
}
