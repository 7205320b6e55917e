/** Seed catalogues of the two demo shops. Both have product 42, with different data. */

export interface Product {
  product_id: number;
  title: string;
  description: string;
  price: number;
  currency: string;
  stock: number;
  status: 'draft' | 'published';
  channels: string[];
  revision: number;
  updated_at: string;
}

const at = '2026-01-05T09:00:00.000Z';
const p = (
  product_id: number,
  title: string,
  description: string,
  price: number,
  stock: number,
  status: Product['status'] = 'draft',
): Product => ({
  product_id,
  title,
  description,
  price,
  currency: 'EUR',
  stock,
  status,
  channels: status === 'published' ? ['web'] : [],
  revision: 1,
  updated_at: at,
});

export function seedProducts(variant: 'A' | 'B'): Product[] {
  if (variant === 'A') {
    return [
      p(7, 'Enamel camping mug', 'White enamel mug with a blue rim, 350 ml.', 12.5, 40, 'published'),
      p(13, 'Linen tea towel', 'Natural stonewashed linen, 50 x 70 cm.', 9, 0),
      p(42, 'Walnut cutting board', 'Solid walnut end-grain board, 40 x 30 cm, oiled.', 39, 12),
    ];
  }
  return [
    p(7, 'Stoneware espresso cup', 'Matte black stoneware cup, 90 ml.', 8, 25, 'published'),
    p(13, 'Cotton apron', 'Heavy cotton canvas apron with two pockets.', 22, 8),
    p(42, 'Ceramic pour-over dripper', 'Hand-glazed ceramic dripper for size 02 filters.', 24, 3),
    p(58, 'Glass carafe', 'Borosilicate carafe, 600 ml, with a cork collar.', 18.9, 0),
  ];
}
