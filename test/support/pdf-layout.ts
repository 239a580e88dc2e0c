import { PDFParse } from 'pdf-parse';

/** One run of text as the PDF draws it: its string, left edge, baseline (from the page's bottom) and width, in points. */
export interface PdfTextItem {
  text: string;
  x: number;
  y: number;
  width: number;
  page: number;
}

/**
 * The text runs of every page with their positions, read with pdf.js (through pdf-parse, which
 * bundles it: its document proxy answers `getTextContent`, whose items carry a transform matrix).
 */
export async function pdfTextItems(pdf: Buffer): Promise<{ items: PdfTextItem[]; pages: number; pageWidth: number }> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    await parser.getInfo();
    type Page = { view: number[]; getTextContent(): Promise<{ items: { str?: string; transform: number[]; width: number }[] }> };
    const proxy = (parser as unknown as { doc: { numPages: number; getPage(n: number): Promise<Page> } }).doc;
    const items: PdfTextItem[] = [];
    let pageWidth = 0;
    for (let n = 1; n <= proxy.numPages; n++) {
      const page = await proxy.getPage(n);
      pageWidth = page.view[2];
      for (const item of (await page.getTextContent()).items) {
        if (typeof item.str === 'string' && item.str.trim() !== '') items.push({ text: item.str, x: item.transform[4], y: item.transform[5], width: item.width, page: n });
      }
    }
    return { items, pages: proxy.numPages, pageWidth };
  } finally {
    await parser.destroy();
  }
}
