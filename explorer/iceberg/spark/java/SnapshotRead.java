// One snapshot of a table read back through Spark's Iceberg source: the rows Spark reads there and the delete
// files Iceberg attached to each data file of that very read.
//
// This is what a Spark job reading the table at a snapshot runs on its executors, driven here in the driver
// without scheduling a job: the catalog's time-travel table (SparkCatalog.loadTable(ident, version), as
// `spark.read.option("snapshot-id", id)` resolves it), its scan builder with the same options, Iceberg's scan
// planning (planFiles: every FileScanTask with its deletes), the input partitions and the partition reader
// factory Spark's BatchScanExec would use (vectorized or row-based, as the session's settings choose), and each
// partition read to the end, so Iceberg's delete filter runs exactly as in a task. The rows are written as Arrow
// by Spark's own Arrow writer (ArrowWriter over ArrowUtils.toArrowSchema with the session time zone, as
// Dataset.toArrow does), so Python reads them with pyarrow and turns them into the values DataFrame.collect()
// gives (explorer/iceberg/spark/readback.py).
//
// Compiled at first use inside Spark's driver JVM with Janino (which Spark ships for its own code generation),
// so it is written in the Java subset Janino accepts: no lambdas, raw collections with casts.
//
// read() returns two Arrow IPC streams back to back (the wire format: explorer/jvm/wire.py) as a byte[],
// or when big the path of a temporary file holding them, which the caller reads and removes:
//   [0] rows  the table's columns at that snapshot, then the metadata columns asked for; Spark's schema as JSON
//             in the Arrow schema's metadata under "spark.schema"
//   [1] plan  one row per scan task: file_path (the data file's location), deletes (list of struct<location,
//             content_offset>: the delete files attached, a deletion vector's blob offset, else null)
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.nio.channels.Channels;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

public class SnapshotRead {

  private static final int BATCH_ROWS = 8192; // rows per Arrow record batch
  private static final int INITIAL_ROWS = 64; // rows a batch's vectors first have room for
  private static final long IN_MEMORY = 1 << 16; // bytes of batches handed over as a byte[]; more: a file
  // The plan's schema: one row per scan task.
  private static final StructType PLAN = new StructType()
      .add("file_path", DataTypes.StringType, false)
      .add("deletes", new ArrayType(new StructType()
          .add("location", DataTypes.StringType, false)
          .add("content_offset", DataTypes.LongType, true), false), false);

  private final HashMap resolved = new HashMap(); // table name -> Spark3Util.CatalogAndIdentifier (parsed once)
  private final HashMap schemaJson = new HashMap(); // StructType -> the Arrow schema metadata naming it

  // metadataColumns: the metadata columns to read after the table's own, comma-separated ("" for none).
  public Object read(SparkSession spark, String tableName, long snapshotId, String metadataColumnList)
      throws Exception {
    String[] metadataColumns = metadataColumnList.isEmpty() ? new String[0] : metadataColumnList.split(",");
    Spark3Util.CatalogAndIdentifier name;
    synchronized (resolved) {
      name = (Spark3Util.CatalogAndIdentifier) resolved.get(tableName);
      if (name == null) {
        if (resolved.size() > 64) { // one entry per run's table: keep the map small
          resolved.clear();
        }
        name = Spark3Util.catalogAndIdentifier(spark, tableName);
        resolved.put(tableName, name);
      }
    }
    TableCatalog catalog = (TableCatalog) name.catalog();
    Table table = catalog.loadTable(name.identifier(), Long.toString(snapshotId));

    HashMap options = new HashMap();
    options.put("snapshot-id", Long.toString(snapshotId));
    ScanBuilder builder = ((SupportsRead) table).newScanBuilder(new CaseInsensitiveStringMap(options));

    StructType wanted = table.schema();
    if (metadataColumns.length > 0) {
      MetadataColumn[] offered = ((SupportsMetadataColumns) table).metadataColumns();
      for (int i = 0; i < metadataColumns.length; i++) {
        MetadataColumn column = null;
        for (int j = 0; j < offered.length; j++) {
          if (offered[j].name().equals(metadataColumns[i])) {
            column = offered[j];
          }
        }
        if (column == null) {
          throw new IllegalArgumentException("the table offers no metadata column " + metadataColumns[i]);
        }
        wanted = wanted.add(new StructField(column.name(), column.dataType(), column.isNullable(),
            Metadata.empty()));
      }
    }
    if (builder instanceof SupportsPushDownRequiredColumns) {
      ((SupportsPushDownRequiredColumns) builder).pruneColumns(wanted);
    }
    Scan scan = builder.build();
    StructType schema = scan.readSchema();
    Batch batch = scan.toBatch();
    InputPartition[] partitions = batch.planInputPartitions();
    PartitionReaderFactory factory = batch.createReaderFactory();
    String timeZone = spark.sessionState().conf().sessionLocalTimeZone();

    Schema rowsSchema = arrowSchema(schema, timeZone, sparkSchemaJson(schema));
    Schema planSchema = arrowSchema(PLAN, timeZone, null);
    Stream plan = new Stream(planSchema);
    try {
      for (int p = 0; p < partitions.length; p++) {
        addTasks(partitions[p], plan);
      }
      plan.flush();
    } finally {
      plan.close();
    }
    // The second half of the partitions is read on a second thread, as Spark runs tasks side by side; each half
    // writes its own record batches, and the stream is the schema, the first half's batches, then the second's.
    int half = (partitions.length + 1) / 2;
    Partitions second = new Partitions(factory, partitions, half, partitions.length, rowsSchema);
    Thread other = null;
    if (half < partitions.length) {
      other = new Thread(second, "explorer-read-back");
      other.setDaemon(true);
      other.start();
    }
    Partitions first = new Partitions(factory, partitions, 0, half, rowsSchema);
    first.run();
    if (other != null) {
      other.join();
    }
    rethrow(first.failure);
    rethrow(second.failure);
    return handOver(new Schema[] {rowsSchema, planSchema},
        new ByteArrayOutputStream[][] {{first.batches, second.batches}, {plan.batches}});
  }

  // Spark's Arrow schema for a Spark schema (Spark's type mapping, the session time zone on timestamps), with
  // the given schema metadata (null for none).
  private static Schema arrowSchema(StructType schema, String timeZone, HashMap metadata) {
    Schema arrow = ArrowUtils.toArrowSchema(schema, timeZone, true, false);
    return metadata == null ? arrow : new Schema(arrow.getFields(), metadata);
  }

  // {"spark.schema": the schema's JSON}, made once per schema (a run reads one table's schema at every snapshot).
  private HashMap sparkSchemaJson(StructType schema) {
    synchronized (schemaJson) {
      HashMap metadata = (HashMap) schemaJson.get(schema);
      if (metadata == null) {
        if (schemaJson.size() > 64) {
          schemaJson.clear();
        }
        metadata = new HashMap();
        metadata.put("spark.schema", schema.json());
        schemaJson.put(schema, metadata);
      }
      return metadata;
    }
  }

  // Arrow IPC streams back to back, one per table: each the schema message, the record batches already serialized,
  // the end-of-stream marker (every message is padded to 8 bytes, so batches serialized apart can follow each
  // other). Up to IN_MEMORY bytes of batches they are handed over as one byte[] (one py4j round trip); more are
  // written to a temporary file whose path is handed over instead (Python maps the file and removes it), since
  // py4j rebuilds a byte[] in Python byte by byte.
  private static Object handOver(Schema[] schemas, ByteArrayOutputStream[][] batches) throws IOException {
    long size = 0;
    for (int t = 0; t < batches.length; t++) {
      for (int i = 0; i < batches[t].length; i++) {
        size += batches[t][i].size();
      }
    }
    if (size <= IN_MEMORY) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      writeStreams(schemas, batches, out);
      return out.toByteArray();
    }
    File file = File.createTempFile("explorer-snapshot-read-", ".arrows");
    try {
      FileOutputStream out = new FileOutputStream(file);
      try {
        writeStreams(schemas, batches, out);
      } finally {
        out.close();
      }
    } catch (IOException e) {
      file.delete();
      throw e;
    }
    return file.getAbsolutePath();
  }

  private static void writeStreams(Schema[] schemas, ByteArrayOutputStream[][] batches, OutputStream out)
      throws IOException {
    WriteChannel channel = new WriteChannel(Channels.newChannel(out));
    for (int t = 0; t < schemas.length; t++) {
      MessageSerializer.serialize(channel, schemas[t]);
      for (int i = 0; i < batches[t].length; i++) {
        batches[t][i].writeTo(out);
      }
      ArrowStreamWriter.writeEndOfStream(channel, IpcOption.DEFAULT);
    }
  }

  private static void rethrow(Throwable failure) throws Exception {
    if (failure instanceof Exception) {
      throw (Exception) failure;
    }
    if (failure instanceof Error) {
      throw (Error) failure;
    }
  }

  // Rows of one schema (Spark's Arrow schema for it) written by Spark's ArrowWriter into record batches of
  // BATCH_ROWS rows, each serialized (as an IPC message) as soon as it is full. ArrowWriter reads only the
  // schema's columns, asking isNullAt first, as Spark's own code does (Iceberg's row reader appends the columns
  // its delete filter needs, such as _pos, and a columnar row's get() would read a null boolean as false).
  private static final class Stream {
    final ByteArrayOutputStream batches = new ByteArrayOutputStream();
    private final WriteChannel channel = new WriteChannel(Channels.newChannel(batches));
    private final BufferAllocator allocator;
    private final VectorSchemaRoot root;
    private final ArrowWriter writer;
    private int count = 0;

    Stream(Schema schema) {
      allocator = ArrowUtils.rootAllocator().newChildAllocator("explorer-snapshot-read", 0, Long.MAX_VALUE);
      VectorSchemaRoot made = null;
      try {
        made = VectorSchemaRoot.create(schema, allocator);
      } catch (RuntimeException e) {
        allocator.close();
        throw e;
      }
      root = made;
      // Vectors start small and double as rows come (Arrow's default first allocation is about 4,000 values
      // per vector, which a snapshot of a few rows would allocate and zero for nothing).
      List vectors = root.getFieldVectors();
      for (int i = 0; i < vectors.size(); i++) {
        ((ValueVector) vectors.get(i)).setInitialCapacity(INITIAL_ROWS);
      }
      writer = ArrowWriter.create(root);
    }

    void write(InternalRow row) throws IOException {
      writer.write(row);
      count++;
      if (count == BATCH_ROWS) {
        flush();
      }
    }

    void flush() throws IOException {
      if (count == 0) {
        return;
      }
      writer.finish();
      ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch();
      try {
        MessageSerializer.serialize(channel, batch);
      } finally {
        batch.close();
      }
      writer.reset();
      count = 0;
    }

    void close() {
      root.close();
      allocator.close();
    }
  }

  // Reads partitions [from, to) to the end, each with the reader Spark would use (vectorized or row-based).
  private static final class Partitions implements Runnable {
    private final PartitionReaderFactory factory;
    private final InputPartition[] partitions;
    private final int from;
    private final int to;
    private final Schema schema;
    ByteArrayOutputStream batches = new ByteArrayOutputStream();
    Throwable failure; // rethrown by the calling thread, so a failed half never passes for an empty one

    Partitions(PartitionReaderFactory factory, InputPartition[] partitions, int from, int to, Schema schema) {
      this.factory = factory;
      this.partitions = partitions;
      this.from = from;
      this.to = to;
      this.schema = schema;
    }

    public void run() {
      try {
        Stream out = new Stream(schema);
        try {
          for (int p = from; p < to; p++) {
            read(partitions[p], out);
          }
          out.flush();
        } finally {
          out.close();
        }
        batches = out.batches;
      } catch (Throwable t) {
        failure = t;
      }
    }

    private void read(InputPartition partition, Stream out) throws Exception {
      if (factory.supportColumnarReads(partition)) {
        PartitionReader reader = factory.createColumnarReader(partition);
        try {
          while (reader.next()) {
            Iterator batchRows = ((ColumnarBatch) reader.get()).rowIterator();
            while (batchRows.hasNext()) {
              out.write((InternalRow) batchRows.next());
            }
          }
        } finally {
          reader.close();
        }
      } else {
        PartitionReader reader = factory.createReader(partition);
        try {
          while (reader.next()) {
            out.write((InternalRow) reader.get());
          }
        } finally {
          reader.close();
        }
      }
    }
  }

  // The scan tasks behind one input partition (Iceberg's SparkInputPartition keeps them; its class is not public,
  // so its public taskGroup() is called by reflection), one plan row each.
  private static void addTasks(InputPartition partition, Stream plan) throws Exception {
    Method method = partition.getClass().getMethod("taskGroup", new Class[0]);
    method.setAccessible(true);
    ScanTaskGroup group = (ScanTaskGroup) method.invoke(partition, new Object[0]);
    Collection tasks = group.tasks();
    Iterator it = tasks.iterator();
    while (it.hasNext()) {
      FileScanTask task = (FileScanTask) it.next();
      List attached = task.deletes();
      Object[] deletes = new Object[attached.size()];
      for (int i = 0; i < attached.size(); i++) {
        DeleteFile delete = (DeleteFile) attached.get(i);
        deletes[i] = new GenericInternalRow(new Object[] {
            UTF8String.fromString(delete.location()), delete.contentOffset()});
      }
      plan.write(new GenericInternalRow(new Object[] {
          UTF8String.fromString(((ContentFile) task.file()).location()), new GenericArrayData(deletes)}));
    }
  }
}
